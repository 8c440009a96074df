package main

import "testing"

// The uuid attribute must equal spi-fake's, Java's UUID.nameUUIDFromBytes of the same name
// (value computed with jshell).
func TestNameUUIDMatchesJava(t *testing.T) {
	got := nameUUID("gpu.example.com/bench-node/gpu-0")
	want := "ba7decc7-5225-3ec7-abe0-bc7713eff9cc"
	if got != want {
		t.Fatalf("nameUUID = %s, want %s", got, want)
	}
}

func TestSlicesHoldAtMostTheChosenCount(t *testing.T) {
	for _, perSlice := range []int{maxDevicesPerSlice, 64} {
		for _, n := range []int{0, 1, 64, 65, 128, 129, 1000, 10000} {
			checkSlices(t, n, perSlice)
		}
	}
}

func checkSlices(t *testing.T, n, perSlice int) {
	pool := newInventory("gpu.example.com", "n", n, perSlice).pool()
	total := 0
	for _, s := range pool.Slices {
		if len(s.Devices) > perSlice {
			t.Fatalf("%d devices, %d per slice: a slice has %d devices", n, perSlice, len(s.Devices))
		}
		total += len(s.Devices)
	}
	if total != n {
		t.Fatalf("%d devices, %d per slice: published %d", n, perSlice, total)
	}
	if want := max(1, (n+perSlice-1)/perSlice); len(pool.Slices) != want {
		t.Fatalf("%d devices, %d per slice: %d slices, want %d", n, perSlice, len(pool.Slices), want)
	}
}

func TestEnvID(t *testing.T) {
	if got := envID("gpu-12"); got != "12" {
		t.Fatalf("envID(gpu-12) = %q", got)
	}
}
