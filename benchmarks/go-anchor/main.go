// Command go-anchor is the Go baseline of dra4j's node benchmarks: a DRA driver built on the Go
// helper (k8s.io/dynamic-resource-allocation/kubeletplugin and resourceslice, v0.37.2) that
// publishes the same simulated devices as dra4j's spi-fake provider and prepares them the same
// way: per-claim checkpoint records and a per-claim CDI spec, each written durably, and the claim
// status applied with server-side apply.
//
// It takes the flags of `fake-dra-driver.jar run`, so a harness starts either driver the same way:
//
//	go-anchor run --driver-name gpu.example.com --node-name NODE --kubeconfig FILE \
//	    --registrar-dir DIR --plugin-dir DIR --cdi-dir DIR --devices 8
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/dynamic-resource-allocation/resourceslice"
	"k8s.io/klog/v2"
)

type options struct {
	driverName   string
	nodeName     string
	kubeconfig   string
	registrarDir string
	pluginDir    string
	cdiDir       string
	podUID       string
	devices      int
	perSlice     int
	serialize    bool
	qps          float64
	burst        int
	contentType  string
}

func main() {
	if len(os.Args) < 2 || os.Args[1] != "run" {
		fmt.Fprintln(os.Stderr, "usage: go-anchor run [flags] (go-anchor run --help lists them)")
		os.Exit(2)
	}
	var o options
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	fs.StringVar(&o.driverName, "driver-name", envOr("DRIVER_NAME", "gpu.example.com"), "DRA driver name")
	fs.StringVar(&o.nodeName, "node-name", os.Getenv("NODE_NAME"), "node name (required)")
	fs.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig; empty: in-cluster configuration")
	fs.StringVar(&o.registrarDir, "registrar-dir", kubeletplugin.KubeletRegistryDir, "kubelet plugin registration directory")
	fs.StringVar(&o.pluginDir, "plugin-dir", "", "plugin data directory (default /var/lib/kubelet/plugins/<driver>)")
	fs.StringVar(&o.cdiDir, "cdi-dir", kubeletplugin.DefaultCDIDir, "CDI spec directory")
	fs.StringVar(&o.podUID, "pod-uid", os.Getenv("POD_UID"), "pod UID; set for seamless rolling updates")
	fs.IntVar(&o.devices, "devices", 8, "number of simulated devices gpu-0 ... gpu-<n-1>")
	fs.IntVar(&o.perSlice, "devices-per-slice", maxDevicesPerSlice, "devices per ResourceSlice, at most the API's 128 (64: the size dra4j publishes for a driver that reports health)")
	fs.BoolVar(&o.serialize, "serialize", true, "serialize prepare and unprepare calls (the Go helper's default)")
	fs.Float64Var(&o.qps, "kube-api-qps", 50, "client rate limit, queries per second")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "client rate limit, burst")
	fs.StringVar(&o.contentType, "kube-api-content-type", "", "request encoding; empty: client-go's default, protobuf for built-in types (the test kit's API server needs application/json)")
	klog.InitFlags(fs)
	if err := fs.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	if o.nodeName == "" {
		fmt.Fprintln(os.Stderr, "--node-name is required")
		os.Exit(2)
	}
	if o.devices < 0 {
		fmt.Fprintln(os.Stderr, "--devices must not be negative")
		os.Exit(2)
	}
	if o.perSlice < 1 || o.perSlice > maxDevicesPerSlice {
		fmt.Fprintf(os.Stderr, "--devices-per-slice must be between 1 and %d\n", maxDevicesPerSlice)
		os.Exit(2)
	}
	if o.pluginDir == "" {
		o.pluginDir = filepath.Join(kubeletplugin.KubeletPluginsDir, o.driverName)
	}
	if err := run(o); err != nil {
		klog.ErrorS(err, "driver failed")
		klog.Flush()
		os.Exit(1)
	}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func run(o options) error {
	config, err := restConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	config.QPS = float32(o.qps)
	config.Burst = o.burst
	config.ContentType = o.contentType
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("create the API client: %w", err)
	}
	for _, dir := range []string{o.registrarDir, o.pluginDir, o.cdiDir} {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return err
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	inv := newInventory(o.driverName, o.nodeName, o.devices, o.perSlice)
	d, err := newDriver(o.driverName, o.nodeName, inv, client, o.pluginDir, o.cdiDir, o.podUID != "", cancel)
	if err != nil {
		return err
	}
	opts := []kubeletplugin.Option{
		kubeletplugin.DriverName(o.driverName),
		kubeletplugin.NodeName(o.nodeName),
		kubeletplugin.KubeClient(client),
		kubeletplugin.RegistrarDirectoryPath(o.registrarDir),
		kubeletplugin.PluginDataDirectoryPath(o.pluginDir),
		kubeletplugin.Serialize(o.serialize),
	}
	if o.podUID != "" {
		opts = append(opts, kubeletplugin.RollingUpdate(types.UID(o.podUID)))
	}
	helper, err := kubeletplugin.Start(ctx, d, opts...)
	if err != nil {
		return fmt.Errorf("start the kubelet plugin: %w", err)
	}
	defer helper.Stop()
	if err := helper.PublishResources(ctx, resourceslice.DriverResources{
		Pools: map[string]resourceslice.Pool{o.nodeName: inv.pool()},
	}); err != nil {
		return fmt.Errorf("publish the devices: %w", err)
	}
	klog.InfoS("driver started", "driver", o.driverName, "node", o.nodeName, "devices", o.devices)
	<-ctx.Done()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return nil
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		return rest.InClusterConfig()
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig %s: %w", kubeconfig, err)
	}
	return config, nil
}
