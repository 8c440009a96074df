package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"dra4j.io/benchmarks/node/procstat"
)

// driverKind says how to start one of the compared drivers; both take the same `run` flags.
type driverKind struct {
	label  string // in logs and node names, and the key of the JSON figures
	column string // its column in the table
	// command is the program, its own flags, "run" and the run flags only this driver needs, for
	// a serialized or a parallel driver.
	command func(serialized bool) []string
}

// instance is what differs between driver processes of one comparison.
type instance struct {
	node       string
	dir        string // registrar/, plugin/, cdi/ and driver.log below it
	devices    int
	serialized bool
	podUID     string
}

func (i instance) registrarDir() string { return filepath.Join(i.dir, "registrar") }
func (i instance) pluginDir() string    { return filepath.Join(i.dir, "plugin") }
func (i instance) cdiDir() string       { return filepath.Join(i.dir, "cdi") }

// process is a running driver.
type process struct {
	cmd     *exec.Cmd
	started time.Time
	exited  chan struct{}
	err     error
	log     string
}

func startDriver(k driverKind, inst instance, kubeconfig, driverName string) (*process, error) {
	for _, d := range []string{inst.registrarDir(), inst.pluginDir(), inst.cdiDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	command := k.command(inst.serialized)
	args := append([]string{}, command[1:]...)
	args = append(args,
		"--driver-name", driverName,
		"--node-name", inst.node,
		"--kubeconfig", kubeconfig,
		"--registrar-dir", inst.registrarDir(),
		"--plugin-dir", inst.pluginDir(),
		"--cdi-dir", inst.cdiDir(),
		"--devices", strconv.Itoa(inst.devices),
		// Both clients' rate limits out of the way: the limiter would pace the two API calls of
		// each prepare and the slice writes, and be measured instead of the driver.
		"--kube-api-qps", "10000",
		"--kube-api-burst", "10000",
	)
	if inst.podUID != "" {
		args = append(args, "--pod-uid", inst.podUID)
	}
	logName := filepath.Join(inst.dir, fmt.Sprintf("driver-%d.log", time.Now().UnixNano()))
	logFile, err := os.Create(logName)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(command[0], args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	p := &process{cmd: cmd, exited: make(chan struct{}), log: logName}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", k.label, err)
	}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// alive returns an error, with the end of the driver's log, once the process has exited.
func (p *process) alive() error {
	select {
	case <-p.exited:
		return fmt.Errorf("the driver exited (%v); end of its log:\n%s", p.err, tail(p.log, 2000))
	default:
		return nil
	}
}

// terminate sends SIGTERM, as the kubelet does when it stops a pod, and waits for the exit.
func (p *process) terminate() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// kill is a crash: SIGKILL, nothing cleaned up.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// usage is what /proc says about a process.
type usage struct {
	rssKB, rssFileKB int64
	threads          int64
	cpu              time.Duration // user + system
}

func readUsage(pid int) (usage, error) {
	var u usage
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			u.rssKB = v
		case "RssFile:":
			u.rssFileKB = v
		case "Threads:":
			u.threads = v
		}
	}
	u.cpu, err = procstat.CPU(pid)
	if err != nil {
		return u, err
	}
	return u, nil
}
