package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// metric is one row of the side-by-side table.
type metric struct {
	label  string
	key    string
	unit   string
	target string // the target for the ratio dra4j / Go, if any
	// derive computes the value from other figures of the same run instead of reading key.
	derive func(f figures) (float64, bool)
}

func (m metric) value(f figures) (float64, bool) {
	if m.derive != nil {
		return m.derive(f)
	}
	v, ok := f[m.key]
	return v, ok
}

func metrics(callers int, publish []int) []metric {
	n := fmt.Sprint(callers)
	rows := []metric{
		{label: "start → registration answered (GetInfo)", key: "start/serialized", unit: "ms", target: "≤ 3"},
		{label: "start → first ResourceSlice in the API server", key: "first slice/serialized", unit: "ms"},
		{label: "first NodePrepareResources after registration", key: "first prepare/serialized", unit: "ms", target: "≤ 2"},
		{label: "first prepare / own warm median (1 caller)", unit: "x", target: "dra4j ≤ 2 (own ratio)", derive: func(f figures) (float64, bool) {
			return f["first prepare/serialized"] / f["prepare median/serialized/1"], f["prepare median/serialized/1"] > 0
		}},
	}
	for _, m := range []string{"serialized", "parallel"} {
		rows = append(rows,
			metric{label: "prepare median, 1 caller, " + m, key: "prepare median/" + m + "/1", unit: "ms", target: "≤ 1.25"},
			metric{label: "prepare p99, 1 caller, " + m, key: "prepare p99/" + m + "/1", unit: "ms", target: "≤ 1.25"},
			metric{label: "unprepare median, 1 caller, " + m, key: "unprepare median/" + m + "/1", unit: "ms"},
			metric{label: "pairs/s, 1 caller, " + m, key: "pairs/s/" + m + "/1", unit: "/s"},
			metric{label: "prepare median, " + n + " callers, " + m, key: "prepare median/" + m + "/" + n, unit: "ms"},
			metric{label: "prepare p99, " + n + " callers, " + m, key: "prepare p99/" + m + "/" + n, unit: "ms"},
			metric{label: "pairs/s, " + n + " callers, " + m, key: "pairs/s/" + m + "/" + n, unit: "/s", target: "≥ 1.0"},
		)
	}
	rows = append(rows,
		metric{label: "API requests per prepare+unprepare", key: "api per prepare/serialized/1", unit: "", target: "≤ Go's"},
		metric{label: "CPU time per prepare+unprepare (1 caller)", key: "cpu per pair/serialized/1", unit: "ms"},
		metric{label: "RSS after start", key: "rss start/serialized", unit: "MB"},
		metric{label: "threads after start", key: "threads start/serialized", unit: ""},
		metric{label: "RSS after the long run of pairs", key: "rss end", unit: "MB", target: "≤ 2 (goal 1.5)"},
		metric{label: "  of which file-backed", key: "rss end file", unit: "MB"},
		metric{label: "threads after the long run of pairs", key: "threads end", unit: ""},
		metric{label: "after the long run (JIT-warm): prepare median, 1 caller, serialized", key: "prepare median/warm", unit: "ms"},
		metric{label: "after the long run (JIT-warm): prepare p99, 1 caller, serialized", key: "prepare p99/warm", unit: "ms"},
		metric{label: "after the long run (JIT-warm): unprepare median", key: "unprepare median/warm", unit: "ms"},
		metric{label: "after the long run (JIT-warm): pairs/s, 1 caller", key: "pairs/s/warm", unit: "/s"},
		metric{label: "after the long run (JIT-warm): CPU time per prepare+unprepare", key: "cpu per pair/warm", unit: "ms"},
	)
	for _, d := range publish {
		d := d
		k := fmt.Sprintf("/%d", d)
		rows = append(rows,
			metric{label: fmt.Sprintf("publish %d devices: slice writes", d), key: "publish writes" + k},
			metric{label: fmt.Sprintf("publish %d devices: start → all in the API server", d), key: "publish time" + k, unit: "ms"},
			metric{label: fmt.Sprintf("publish %d devices: time per device beyond start (8 devices)", d), unit: "µs", target: "≤ 1.0", derive: func(f figures) (float64, bool) {
				// Undefined when the big publish beat the 8-device start of the same run (noise: both
				// are dominated by the process start at 1,000 devices); a negative cost means nothing.
				t, ok := f["publish time"+k]
				beyond := t - f["first slice/serialized"]
				return beyond * 1000 / float64(d), ok && beyond > 0
			}},
			metric{label: fmt.Sprintf("publish %d devices: driver CPU until published", d), key: "publish cpu" + k, unit: "ms"},
		)
	}
	rows = append(rows,
		metric{label: "crash restart: start → registration answered", key: "crash registered", unit: "ms"},
		metric{label: "crash restart: start → pending claim answered", key: "crash answered", unit: "ms", target: "≤ 3"},
		metric{label: "rolling update: new instance start → registered", key: "rolling registered", unit: "ms"},
		metric{label: "rolling update: calls answered by the new instance", key: "rolling calls by new", unit: ""},
		metric{label: "rolling update: of those, cold (> 2x old p99)", key: "rolling cold", unit: "", target: "0"},
		metric{label: "rolling update: failed calls", key: "rolling failed", unit: "", target: "0"},
		metric{label: "rolling update: new instance's first call", key: "rolling first new call", unit: "ms"},
	)
	return rows
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	c := append([]float64{}, v...)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

// column is one driver's figures, one entry per run.
type column struct {
	name string
	runs []figures
}

// printTable writes the side-by-side table in Markdown: per metric the median over runs of each
// driver, then for each driver but the last the median and range over runs of the per-run ratio
// of its figure to the last driver's (the baseline: the Go helper by default).
func printTable(w io.Writer, rows []metric, columns []column) {
	base := columns[len(columns)-1]
	header, align := "| metric |", "|---|"
	for _, c := range columns {
		header += " " + c.name + " |"
		align += "--:|"
	}
	for _, c := range columns[:len(columns)-1] {
		header += fmt.Sprintf(" %s / %s (range over runs) |", c.name, base.name)
		align += "--:|"
	}
	fmt.Fprintln(w, header+" target |")
	fmt.Fprintln(w, align+"---|")
	for _, m := range rows {
		values := make([]string, len(columns))
		seen := false
		for i, c := range columns {
			var v []float64
			for _, f := range c.runs {
				if x, ok := m.value(f); ok {
					v = append(v, x)
				}
			}
			seen = seen || len(v) > 0
			values[i] = format(v, m.unit)
		}
		if !seen {
			continue
		}
		line := "| " + m.label + " | " + strings.Join(values, " | ") + " |"
		for _, c := range columns[:len(columns)-1] {
			line += " " + ratio(m, c.runs, base.runs) + " |"
		}
		fmt.Fprintln(w, line+" "+m.target+" |")
	}
}

// ratio is the median and range over runs of a / b, run by run (runs are interleaved).
func ratio(m metric, a, b []figures) string {
	var ratios []float64
	for i := 0; i < min(len(a), len(b)); i++ {
		va, oka := m.value(a[i])
		vb, okb := m.value(b[i])
		if oka && okb && vb != 0 {
			ratios = append(ratios, va/vb)
		}
	}
	if len(ratios) == 0 {
		return "–"
	}
	lo, hi := ratios[0], ratios[0]
	for _, r := range ratios {
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	s := fmt.Sprintf("%.2f", median(ratios))
	if len(ratios) > 1 {
		s += fmt.Sprintf(" (%.2f–%.2f)", lo, hi)
	}
	return s
}

func format(v []float64, unit string) string {
	if len(v) == 0 {
		return "–"
	}
	x := median(v)
	var s string
	switch {
	case math.Abs(x) >= 100:
		s = fmt.Sprintf("%.0f", x)
	case math.Abs(x) >= 10:
		s = fmt.Sprintf("%.1f", x)
	default:
		s = fmt.Sprintf("%.2f", x)
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, ".00"), ".0")
	if unit != "" && unit != "x" {
		s += " " + unit
	}
	return s
}
