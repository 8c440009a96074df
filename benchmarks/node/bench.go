package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const driverName = "gpu.example.com"

// bench holds what every scenario shares.
type bench struct {
	api        *apiServer
	namespace  string
	workDir    string
	pairs      int
	callers    int
	longPairs  int
	publish    []int
	rollingFor time.Duration
	trace      *traceFile
}

// traceFile takes every measured call of the pairs phases (--trace), one CSV line each, to see
// when in a phase the slow calls fall (the JIT's warm-up, a GC, a neighbour's burst).
type traceFile struct {
	mu sync.Mutex
	f  *os.File
}

func openTrace(path string) (*traceFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	_, err = fmt.Fprintln(f, "driver,run,phase,caller,index,start_unix_us,start_ms,prepare_ms,unprepare_ms")
	return &traceFile{f: f}, err
}

func (t *traceFile) write(driver string, run int, phase string, began time.Time, calls []call) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	sort.Slice(calls, func(i, j int) bool { return calls[i].start < calls[j].start })
	for _, c := range calls {
		fmt.Fprintf(t.f, "%s,%d,%s,%d,%d,%d,%.3f,%.3f,%.3f\n", driver, run+1, phase, c.caller, c.index,
			began.Add(c.start).UnixMicro(), ms(c.start), c.prepare, c.unprepare)
	}
}

func (t *traceFile) close() error {
	if t == nil {
		return nil
	}
	return t.f.Close()
}

// figures are one driver's results of one run, keyed by metric name (see metrics in report.go).
type figures map[string]float64

// measure runs every scenario for one driver and returns its figures.
func (b *bench) measure(ctx context.Context, k driverKind, run int) (figures, error) {
	f := figures{}
	for _, serialized := range []bool{true, false} {
		if err := b.pairsScenario(ctx, k, run, serialized, f); err != nil {
			return nil, err
		}
	}
	for _, n := range b.publish {
		if err := b.publishScenario(ctx, k, run, n, f); err != nil {
			return nil, err
		}
	}
	if err := b.crashScenario(ctx, k, run, f); err != nil {
		return nil, err
	}
	if b.rollingFor > 0 {
		if err := b.rollingScenario(ctx, k, run, f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func mode(serialized bool) string {
	if serialized {
		return "serialized"
	}
	return "parallel"
}

func (b *bench) newInstance(k driverKind, run int, what string, devices int, serialized bool) (instance, string, error) {
	node := fmt.Sprintf("%s-%s-r%d", strings.ToLower(k.label), what, run)
	// Short: a rolling update's socket name carries the pod UID, and a socket path may have at
	// most 107 bytes.
	dir, err := os.MkdirTemp(b.workDir, fmt.Sprintf("%c%d-", what[0], run))
	if err != nil {
		return instance{}, "", err
	}
	return instance{node: node, dir: dir, devices: devices, serialized: serialized}, node, nil
}

func (b *bench) finish(ctx context.Context, inst instance) {
	b.api.cleanUp(ctx, b.namespace, inst.node, inst.node)
	if !keep {
		_ = os.RemoveAll(inst.dir)
	}
}

// pairsScenario: start → registration → first slice, the first prepare after registration, then
// pairs at 1 and at N callers; in serialized mode also the long run for the footprint.
func (b *bench) pairsScenario(ctx context.Context, k driverKind, run int, serialized bool, f figures) error {
	m := mode(serialized)
	inst, node, err := b.newInstance(k, run, m, 8, serialized)
	if err != nil {
		return err
	}
	defer b.finish(ctx, inst)
	if err := b.api.createNode(ctx, node); err != nil {
		return err
	}
	// The claims exist before the driver starts, as when pods wait for a restarted driver.
	first, err := b.api.createClaims(ctx, b.namespace, node+"-first", node, driverName, node, 1, func(int) string { return "gpu-0" })
	if err != nil {
		return err
	}
	single, err := b.api.createClaims(ctx, b.namespace, node+"-c1", node, driverName, node, b.pairs, deviceOf)
	if err != nil {
		return err
	}
	multi, err := b.api.createClaims(ctx, b.namespace, node+"-cn", node, driverName, node, b.pairs, deviceOf)
	if err != nil {
		return err
	}
	sw, err := b.api.watchSlices(ctx, node, inst.devices)
	if err != nil {
		return err
	}
	defer sw.stop()

	p, err := startDriver(k, inst, b.api.kubeconfig, driverName)
	if err != nil {
		return err
	}
	defer p.terminate()
	pl, err := awaitRegistration(ctx, inst.registrarDir(), driverName, nil, p.alive)
	if err != nil {
		return err
	}
	defer pl.close()
	registered := time.Since(p.started)
	t := time.Now()
	if err := pl.prepare(ctx, first[0]); err != nil {
		return err
	}
	firstPrepare := time.Since(t)
	if err := pl.unprepare(ctx, first[0]); err != nil {
		return err
	}
	select {
	case <-sw.completed:
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: the devices of %s were not published within 60 s", k.label, node)
	}
	firstSlice, _ := sw.times()
	started, err := readUsage(p.pid())
	if err != nil {
		return err
	}
	f["start/"+m] = ms(registered)
	f["first slice/"+m] = ms(firstSlice.Sub(p.started))
	f["first prepare/"+m] = ms(firstPrepare)
	f["rss start/"+m] = float64(started.rssKB) / 1024
	f["threads start/"+m] = float64(started.threads)

	for _, c := range []struct {
		callers int
		claims  []claimRef
	}{{1, single}, {b.callers, multi}} {
		if err := b.phase(ctx, k, run, p, pl, c.claims, c.callers, fmt.Sprintf("%s/%d", m, c.callers), f); err != nil {
			return err
		}
	}
	if serialized && b.longPairs > 0 {
		if _, err := runPairs(ctx, pl, cycle(multi, b.longPairs, b.callers), b.callers); err != nil {
			return fmt.Errorf("%s long run: %w", k.label, err)
		}
		end, err := readUsage(p.pid())
		if err != nil {
			return err
		}
		f["rss end"] = float64(end.rssKB) / 1024
		f["rss end file"] = float64(end.rssFileKB) / 1024
		f["threads end"] = float64(end.threads)
		// The 1-caller phase again, now that the JIT has compiled the call path: the phases above
		// begin right after start, and a JVM's first thousand calls run partly interpreted.
		if err := b.phase(ctx, k, run, p, pl, single, 1, "warm", f); err != nil {
			return err
		}
	}
	return nil
}

// phase runs one measured phase of pairs and records its figures under key: latencies, pairs/s,
// the driver's CPU and the API requests per pair (resourceclaims).
func (b *bench) phase(ctx context.Context, k driverKind, run int, p *process, pl *plugin, claims []claimRef, callers int, key string, f figures) error {
	before, err := b.api.requestCounts(ctx)
	if err != nil {
		return err
	}
	u0, _ := readUsage(p.pid())
	r, err := runPairs(ctx, pl, claims, callers)
	if err != nil {
		return fmt.Errorf("%s %s: %w", k.label, key, err)
	}
	u1, _ := readUsage(p.pid())
	after, err := b.api.requestCounts(ctx)
	if err != nil {
		return err
	}
	d := requestDelta(before, after, "resourceclaims")
	f["prepare median/"+key] = r.prepare.percentile(50)
	f["prepare p99/"+key] = r.prepare.percentile(99)
	f["unprepare median/"+key] = r.unprepare.percentile(50)
	f["pairs/s/"+key] = float64(len(claims)) / r.wall.Seconds()
	f["cpu per pair/"+key] = ms(u1.cpu-u0.cpu) / float64(len(claims))
	f["api per prepare/"+key] = sum(d, nil) / float64(len(claims))
	b.trace.write(k.label, run, key, r.began, r.calls)
	log.Printf("  %s %s: prepare median %.2f ms p99 %.2f ms, %.0f pairs/s, API requests %v", k.label, key,
		r.prepare.percentile(50), r.prepare.percentile(99), f["pairs/s/"+key], d)
	return nil
}

// deviceOf spreads claims over the 8 devices so that claims handled at the same time by up to
// eight callers never share a device.
func deviceOf(i int) string { return fmt.Sprintf("gpu-%d", i%8) }

// cycle repeats claims up to n entries for runPairs with callers callers, keeping each caller on
// the devices it started with: it repeats a prefix whose length is a multiple of both the callers
// and the 8 devices of deviceOf, so that entry i is caller i%callers's and its device never moves
// to another caller (two callers on one device would see an overlap refused).
func cycle(claims []claimRef, n, callers int) []claimRef {
	period := 8
	for period%callers != 0 {
		period += 8
	}
	usable := len(claims) - len(claims)%period
	if usable == 0 {
		usable = len(claims) // fewer claims than one period: each is used once per round anyway
	}
	out := make([]claimRef, n)
	for i := range out {
		out[i] = claims[i%usable]
	}
	return out
}

type pairsResult struct {
	prepare, unprepare samples
	began              time.Time
	wall               time.Duration
	calls              []call
}

// call is one prepare+unprepare pair as --trace writes it.
type call struct {
	caller, index      int
	start              time.Duration // since the phase began
	prepare, unprepare float64       // ms
}

// runPairs prepares and unprepares every claim once, with callers concurrent callers: caller c
// takes claims c, c+callers, ..., so with deviceOf no two callers use one device at once.
func runPairs(ctx context.Context, pl *plugin, claims []claimRef, callers int) (pairsResult, error) {
	var r pairsResult
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	r.began = start
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			var prep, unprep samples
			var calls []call
			for i := c; i < len(claims); i += callers {
				t := time.Now()
				began := t.Sub(start)
				if err := pl.prepare(ctx, claims[i]); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				prep = append(prep, ms(time.Since(t)))
				t = time.Now()
				if err := pl.unprepare(ctx, claims[i]); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				unprep = append(unprep, ms(time.Since(t)))
				calls = append(calls, call{caller: c, index: i, start: began, prepare: prep[len(prep)-1], unprepare: unprep[len(unprep)-1]})
			}
			mu.Lock()
			r.prepare = append(r.prepare, prep...)
			r.unprepare = append(r.unprepare, unprep...)
			r.calls = append(r.calls, calls...)
			mu.Unlock()
		}(c)
	}
	wg.Wait()
	r.wall = time.Since(start)
	return r, firstErr
}

// publishScenario: a driver with n devices, from process start until all n are in the API server.
func (b *bench) publishScenario(ctx context.Context, k driverKind, run, n int, f figures) error {
	inst, node, err := b.newInstance(k, run, fmt.Sprintf("publish%d", n), n, true)
	if err != nil {
		return err
	}
	defer b.finish(ctx, inst)
	if err := b.api.createNode(ctx, node); err != nil {
		return err
	}
	sw, err := b.api.watchSlices(ctx, node, n)
	if err != nil {
		return err
	}
	defer sw.stop()
	before, err := b.api.requestCounts(ctx)
	if err != nil {
		return err
	}
	p, err := startDriver(k, inst, b.api.kubeconfig, driverName)
	if err != nil {
		return err
	}
	defer p.terminate()
	var cpu time.Duration
	select {
	case <-sw.completed:
		u, _ := readUsage(p.pid())
		cpu = u.cpu
	case <-time.After(180 * time.Second):
		return fmt.Errorf("%s: %d devices were not published within 180 s", k.label, n)
	case <-p.exited:
		return p.alive()
	}
	_, complete := sw.times()
	// Writes still under way after the last device arrived (none expected) are counted too.
	time.Sleep(500 * time.Millisecond)
	after, err := b.api.requestCounts(ctx)
	if err != nil {
		return err
	}
	d := requestDelta(before, after, "resourceslices")
	writes := sum(d, func(key string) bool {
		return !strings.HasPrefix(key, "GET ") && !strings.HasPrefix(key, "LIST ") && !strings.HasPrefix(key, "WATCH ")
	})
	key := fmt.Sprintf("/%d", n)
	f["publish writes"+key] = writes
	f["publish time"+key] = ms(complete.Sub(p.started))
	f["publish cpu"+key] = ms(cpu)
	log.Printf("  %s publish %d devices: %.0f ms, CPU %.0f ms, requests %v", k.label, n, f["publish time"+key], ms(cpu), d)
	return nil
}

// crashScenario: a warm driver with a prepared claim is killed; a new process starts on the same
// directories; a claim that waited meanwhile is prepared as soon as the new registration answers.
func (b *bench) crashScenario(ctx context.Context, k driverKind, run int, f figures) error {
	inst, node, err := b.newInstance(k, run, "crash", 8, true)
	if err != nil {
		return err
	}
	defer b.finish(ctx, inst)
	if err := b.api.createNode(ctx, node); err != nil {
		return err
	}
	claims, err := b.api.createClaims(ctx, b.namespace, node+"-c", node, driverName, node, 102, func(i int) string {
		switch i {
		case 0:
			return "gpu-1" // prepared when the driver dies
		case 1:
			return "gpu-0" // pending: its pod waits for the restarted driver
		default:
			return "gpu-" + fmt.Sprint(2+i%6)
		}
	})
	if err != nil {
		return err
	}
	p, err := startDriver(k, inst, b.api.kubeconfig, driverName)
	if err != nil {
		return err
	}
	pl, err := awaitRegistration(ctx, inst.registrarDir(), driverName, nil, p.alive)
	if err != nil {
		p.terminate()
		return err
	}
	// A driver that has served for a while: warm.
	if _, err := runPairs(ctx, pl, claims[2:], 1); err != nil {
		p.terminate()
		return err
	}
	if err := pl.prepare(ctx, claims[0]); err != nil {
		p.terminate()
		return err
	}
	pl.close()
	p.kill()

	p2, err := startDriver(k, inst, b.api.kubeconfig, driverName)
	if err != nil {
		return err
	}
	defer p2.terminate()
	pl2, err := awaitRegistration(ctx, inst.registrarDir(), driverName, nil, p2.alive)
	if err != nil {
		return err
	}
	defer pl2.close()
	registered := time.Since(p2.started)
	if err := pl2.prepare(ctx, claims[1]); err != nil {
		return err
	}
	answered := time.Since(p2.started)
	for _, c := range claims[:2] {
		if err := pl2.unprepare(ctx, c); err != nil {
			return err
		}
	}
	f["crash registered"] = ms(registered)
	f["crash answered"] = ms(answered)
	return nil
}

// rollingScenario: a rolling update with maxSurge 1, as the DaemonSet does it. Two callers keep
// preparing and unpreparing claims, always on the newest registered instance (the kubelet's
// choice); the new instance starts next to the old one, and the old one is stopped (SIGTERM) one
// second after the new one registered. A call answered by the new instance counts as cold when it
// took more than twice the old instance's p99 before the update.
func (b *bench) rollingScenario(ctx context.Context, k driverKind, run int, f figures) error {
	inst, node, err := b.newInstance(k, run, "rolling", 8, true)
	if err != nil {
		return err
	}
	defer b.finish(ctx, inst)
	if err := b.api.createNode(ctx, node); err != nil {
		return err
	}
	const callers = 2
	claims, err := b.api.createClaims(ctx, b.namespace, node+"-c", node, driverName, node, 200, deviceOf)
	if err != nil {
		return err
	}
	oldInst := inst
	oldInst.podUID = fmt.Sprintf("00000000-0000-0000-0000-%012d", 2*run+1)
	newInst := inst
	newInst.podUID = fmt.Sprintf("00000000-0000-0000-0000-%012d", 2*run+2)
	oldP, err := startDriver(k, oldInst, b.api.kubeconfig, driverName)
	if err != nil {
		return err
	}
	defer oldP.terminate()
	oldPl, err := awaitRegistration(ctx, inst.registrarDir(), driverName, nil, oldP.alive)
	if err != nil {
		return err
	}
	defer oldPl.close()
	// Steady state on the old instance.
	steady, err := runPairs(ctx, oldPl, cycle(claims, 400, callers), callers)
	if err != nil {
		return err
	}
	threshold := 2 * steady.prepare.percentile(99)

	var current atomic.Pointer[plugin]
	current.Store(oldPl)
	type call struct {
		byNew   bool
		latency float64
		err     error
	}
	var mu sync.Mutex
	var calls []call
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := c; ; i += callers {
				select {
				case <-stop:
					return
				default:
				}
				claim := claims[i%len(claims)]
				for _, prepare := range []bool{true, false} {
					pl := current.Load()
					t := time.Now()
					var err error
					if prepare {
						err = pl.prepare(ctx, claim)
					} else {
						err = pl.unprepare(ctx, claim)
					}
					mu.Lock()
					calls = append(calls, call{byNew: pl != oldPl, latency: ms(time.Since(t)), err: err})
					mu.Unlock()
				}
			}
		}(c)
	}
	newP, err := startDriver(k, newInst, b.api.kubeconfig, driverName)
	if err != nil {
		close(stop)
		wg.Wait()
		return err
	}
	defer newP.terminate()
	newPl, err := awaitRegistration(ctx, inst.registrarDir(), driverName, map[string]bool{oldPl.registrationSocket: true}, newP.alive)
	if err != nil {
		close(stop)
		wg.Wait()
		return err
	}
	defer newPl.close()
	newRegistered := time.Since(newP.started)
	current.Store(newPl)
	time.Sleep(time.Second)
	oldP.terminate()
	time.Sleep(b.rollingFor)
	close(stop)
	wg.Wait()

	var byNew, cold, failed int
	var firstNew float64 = -1
	for _, c := range calls {
		if c.err != nil {
			failed++
			log.Printf("  %s rolling update: failed call: %v", k.label, c.err)
			continue
		}
		if c.byNew {
			byNew++
			if firstNew < 0 {
				firstNew = c.latency
			}
			if c.latency > threshold {
				cold++
			}
		}
	}
	f["rolling registered"] = ms(newRegistered)
	f["rolling calls by new"] = float64(byNew)
	f["rolling cold"] = float64(cold)
	f["rolling failed"] = float64(failed)
	f["rolling first new call"] = firstNew
	log.Printf("  %s rolling update: new instance registered after %.0f ms; %d calls by it, %d cold (> %.1f ms), %d failed; its first call %.1f ms",
		k.label, ms(newRegistered), byNew, cold, threshold, failed, firstNew)
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

type samples []float64

func (s samples) percentile(p float64) float64 {
	if len(s) == 0 {
		return 0
	}
	c := append(samples{}, s...)
	sort.Float64s(c)
	i := int(p/100*float64(len(c))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(c) {
		i = len(c) - 1
	}
	return c[i]
}

var keep = os.Getenv("DRA4J_BENCH_KEEP") != ""
