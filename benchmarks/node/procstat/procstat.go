// Package procstat reads a process's CPU time from /proc, for the node harness and slicecost.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux this runs on.
const clockTick = 100.0

// CPU is the user plus system time the process has used so far (/proc/<pid>/stat, fields 14 and 15).
func CPU(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may contain spaces.
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return time.Duration((utime + stime) / clockTick * float64(time.Second)), nil
}
