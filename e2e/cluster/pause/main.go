// Command pause is the sandbox process of the e2e node's pods: it holds the pod's namespaces
// open, reaps the children that end up with it as their parent, and exits on SIGTERM or SIGINT
// so that stopping a sandbox is quick. It stands in for registry.k8s.io/pause, which cannot be
// pulled here (no registry); e2e/cluster.sh wraps it in an image of one file.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if os.Getpid() != 1 {
		os.Stderr.WriteString("pause: should be the first process of its PID namespace\n")
	}
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		// One SIGCHLD may stand for several children: reap every one that has exited.
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
