// Command slicecost measures what publishing ResourceSlices costs a local kube-apiserver, by the
// request's encoding and by the number of devices per slice: the two ways a driver's publish can
// differ from another's at equal devices. One client (client-go) creates the same devices as
// slices of 64 or 128 devices, in JSON or protobuf, alternating the variants round by round, and
// reads the API server's CPU time from /proc around each variant. The API server must run on this
// machine (e2e/cluster.sh up).
//
//	cd benchmarks/node && go run ./slicecost --kubeconfig "$KUBECONFIG" [--rounds 8] [--devices 2560]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"dra4j.io/benchmarks/node/procstat"
)

const (
	jsonType  = "application/json"
	protoType = "application/vnd.kubernetes.protobuf"
	label     = "dra4j.io/slicecost"
)

// variant is one way of publishing the same devices.
type variant struct {
	name     string
	request  string // Content-Type of the creates
	answer   string // Accept of the creates
	perSlice int
}

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the local API server")
	rounds := flag.Int("rounds", 8, "rounds; each creates and deletes the devices once per variant")
	devices := flag.Int("devices", 2560, "devices published per variant and round (a multiple of 128)")
	flag.Parse()
	if *devices <= 0 || *devices%128 != 0 {
		fail("--devices must be a positive multiple of 128")
	}
	pid, err := exec.Command("pgrep", "-x", "kube-apiserver").Output()
	if err != nil {
		fail("no kube-apiserver process on this machine (e2e/cluster.sh up): %v", err)
	}
	server, _ := strconv.Atoi(strings.Fields(string(pid))[0])
	variants := []variant{
		{"JSON request, JSON answer, 64 per slice (dra4j)", jsonType, jsonType, 64},
		{"protobuf request, JSON answer, 64 per slice", protoType, jsonType, 64},
		{"protobuf request, protobuf answer, 64 per slice (client-go)", protoType, protoType, 64},
		{"JSON request, JSON answer, 128 per slice", jsonType, jsonType, 128},
		{"protobuf request, protobuf answer, 128 per slice", protoType, protoType, 128},
	}
	cpu := make([][]float64, len(variants))
	wall := make([][]float64, len(variants))
	ctx := context.Background()
	for round := 0; round < *rounds; round++ {
		for i, v := range variants {
			client := newClient(*kubeconfig, v)
			// One request first, so connection set-up is not counted.
			if _, err := client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
				fail("list ResourceSlices: %v", err)
			}
			pool := fmt.Sprintf("round-%d-%d", round, i)
			count := *devices / v.perSlice
			before, start := cpuTime(server), time.Now()
			for s := 0; s < count; s++ {
				if _, err := client.ResourceV1().ResourceSlices().Create(ctx, slice(pool, s, count, v.perSlice), metav1.CreateOptions{}); err != nil {
					fail("create a ResourceSlice: %v", err)
				}
			}
			wall[i] = append(wall[i], float64(time.Since(start).Milliseconds()))
			cpu[i] = append(cpu[i], float64((cpuTime(server) - before).Milliseconds()))
			if err := client.ResourceV1().ResourceSlices().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: label}); err != nil {
				fail("delete the ResourceSlices: %v", err)
			}
			// Let the deletes' and the watch caches' work settle before the next variant.
			time.Sleep(2 * time.Second)
		}
	}
	fmt.Printf("| %d devices, %d rounds | API server CPU, median (range) | create wall time, median |\n|---|--:|--:|\n", *devices, *rounds)
	for i, v := range variants {
		lo, med, hi := spread(cpu[i])
		_, w, _ := spread(wall[i])
		fmt.Printf("| %s | %.0f ms (%.0f–%.0f) | %.0f ms |\n", v.name, med, lo, hi, w)
	}
}

func newClient(kubeconfig string, v variant) kubernetes.Interface {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fail("read kubeconfig %s: %v", kubeconfig, err)
	}
	config.QPS, config.Burst = 10000, 10000
	config.ContentType, config.AcceptContentTypes = v.request, v.answer
	return kubernetes.NewForConfigOrDie(config)
}

// slice holds the fake driver's devices: the same attributes and capacity as spi-fake's.
func slice(pool string, index, count, perSlice int) *resourceapi.ResourceSlice {
	memory := resource.MustParse("80Gi")
	devices := make([]resourceapi.Device, 0, perSlice)
	for d := index * perSlice; d < (index+1)*perSlice; d++ {
		devices = append(devices, resourceapi.Device{
			Name: "gpu-" + strconv.Itoa(d),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"type":          {StringValue: str("gpu")},
				"uuid":          {StringValue: str(fmt.Sprintf("0f3c2a1b-%04x-4222-8333-%012x", index, d))},
				"index":         {IntValue: &[]int64{int64(d)}[0]},
				"model":         {StringValue: str("FAKE-80")},
				"driverVersion": {VersionValue: str("1.0.0")},
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: memory}},
		})
	}
	all := true
	return &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{GenerateName: pool + "-", Labels: map[string]string{label: "1"}},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:   "slicecost.example.com",
			Pool:     resourceapi.ResourcePool{Name: pool, ResourceSliceCount: int64(count)},
			AllNodes: &all,
			Devices:  devices,
		},
	}
}

func str(s string) *string { return &s }

// cpuTime is the API server's CPU time so far.
func cpuTime(pid int) time.Duration {
	cpu, err := procstat.CPU(pid)
	if err != nil {
		fail("read the API server's CPU time: %v", err)
	}
	return cpu
}

func spread(v []float64) (lo, median, hi float64) {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[0], s[len(s)/2], s[len(s)-1]
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "slicecost: "+format+"\n", args...)
	os.Exit(1)
}
