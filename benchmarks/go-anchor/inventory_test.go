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

func TestSlicesStayWithinTheAPILimit(t *testing.T) {
	for _, n := range []int{0, 1, 128, 129, 1000, 10000} {
		pool := newInventory("gpu.example.com", "n", n).pool()
		total := 0
		for _, s := range pool.Slices {
			if len(s.Devices) > devicesPerSlice {
				t.Fatalf("%d devices: a slice has %d devices", n, len(s.Devices))
			}
			total += len(s.Devices)
		}
		if total != n {
			t.Fatalf("%d devices: published %d", n, total)
		}
		if want := max(1, (n+devicesPerSlice-1)/devicesPerSlice); len(pool.Slices) != want {
			t.Fatalf("%d devices: %d slices, want %d", n, len(pool.Slices), want)
		}
	}
}

func TestEnvID(t *testing.T) {
	if got := envID("gpu-12"); got != "12" {
		t.Fatalf("envID(gpu-12) = %q", got)
	}
}
