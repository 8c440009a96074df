package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// apiServer is the API server both drivers talk to: the real kube-apiserver of a cluster (a
// kubeconfig given) or the test kit's standalone fake, started by the harness.
type apiServer struct {
	kubeconfig string
	// goFlags are extra flags for the Go driver against this server.
	goFlags []string
	client  kubernetes.Interface
	kind    string
	stop    func()
}

// startTestkit runs `java -jar dra-testkit-apiserver.jar --port 0 --kubeconfig-out FILE`, as the
// README documents it, with any extra JVM flags, and waits until it serves.
func startTestkit(java, jar string, jvmFlags []string, dir string) (*apiServer, error) {
	kubeconfig := filepath.Join(dir, "apiserver.kubeconfig")
	// --allow-anonymous: client-go (the Go driver) sends no credentials to a plain-http server.
	args := append(append([]string{}, jvmFlags...), "-jar", jar, "--port", "0", "--allow-anonymous", "--kubeconfig-out", kubeconfig)
	cmd := exec.Command(java, args...)
	logFile, err := os.Create(filepath.Join(dir, "apiserver.log"))
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the test kit's API server: %w", err)
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		_ = logFile.Close()
	}
	// Main prints the URL once it serves; the kubeconfig is written before that.
	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			// The URL line; JVM flags (a flight recording) may print other lines first.
			if strings.HasPrefix(s.Text(), "http") {
				select {
				case lines <- s.Text():
				default:
				}
			}
		}
	}()
	select {
	case <-lines:
	case <-time.After(60 * time.Second):
		stop()
		return nil, fmt.Errorf("the test kit's API server did not start within 60 s (log: %s)", logFile.Name())
	}
	a, err := connect(kubeconfig, "test kit standalone API server")
	if err != nil {
		stop()
		return nil, err
	}
	a.stop = stop
	// The test kit's server reads JSON only; client-go sends protobuf for built-in types unless told.
	a.goFlags = []string{"--kube-api-content-type", "application/json"}
	return a, nil
}

func connect(kubeconfig, kind string) (*apiServer, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig %s: %w", kubeconfig, err)
	}
	config.QPS = 10000
	config.Burst = 10000
	// The harness's own requests in JSON, which either server reads.
	config.ContentType = "application/json"
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	a := &apiServer{kubeconfig: kubeconfig, client: client, kind: kind, stop: func() {}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if _, err := client.Discovery().ServerVersion(); err == nil {
			break
		} else if ctx.Err() != nil {
			return nil, fmt.Errorf("API server of %s does not answer: %w", kubeconfig, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if v, err := client.Discovery().ServerVersion(); err == nil {
		a.kind += " " + v.GitVersion
	}
	return a, nil
}

func (a *apiServer) ensureNamespace(ctx context.Context, name string) error {
	_, err := a.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	// The test kit's server has no Namespace resource (NotFound) and needs none.
	if err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsNotFound(err) {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return nil
}

// createNode stands in for the kubelet's registration of its Node: both drivers read it for the
// owner reference of their ResourceSlices.
func (a *apiServer) createNode(ctx context.Context, name string) error {
	_, err := a.client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create node %s: %w", name, err)
	}
	return nil
}

// cleanUp removes what one driver process left: its node's slices, the node and the claims.
func (a *apiServer) cleanUp(ctx context.Context, namespace, node, label string) {
	_ = a.client.ResourceV1().ResourceSlices().DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector(resourceapi.ResourceSliceSelectorNodeName, node).String()})
	_ = a.client.CoreV1().Nodes().Delete(ctx, node, metav1.DeleteOptions{})
	_ = a.client.ResourceV1().ResourceClaims(namespace).DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: benchLabel + "=" + label})
}

const benchLabel = "bench.dra4j.io/run"

// createClaims creates allocated claims, as the scheduler leaves them: claim i gets device
// devices[i % len(devices)]. Four requests at a time.
func (a *apiServer) createClaims(ctx context.Context, namespace, prefix, label, driver, node string, n int, device func(i int) string) ([]claimRef, error) {
	out := make([]claimRef, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ref, err := a.createClaim(ctx, namespace, fmt.Sprintf("%s-%d", prefix, i), label, driver, node, device(i))
				if err != nil {
					errs <- err
					continue
				}
				out[i] = ref
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return out, nil
}

func (a *apiServer) createClaim(ctx context.Context, namespace, name, label, driver, node, device string) (claimRef, error) {
	claims := a.client.ResourceV1().ResourceClaims(namespace)
	c, err := claims.Create(ctx, &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{benchLabel: label}},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name:    "gpu",
			Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: driver},
		}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		return claimRef{}, fmt.Errorf("create claim %s/%s: %w", namespace, name, err)
	}
	c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Request: "gpu", Driver: driver, Pool: node, Device: device}},
	}}
	if _, err := claims.UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
		return claimRef{}, fmt.Errorf("allocate claim %s/%s: %w", namespace, name, err)
	}
	return claimRef{namespace: namespace, name: name, uid: string(c.UID), device: device}, nil
}

// requestCounts reads apiserver_request_total from /metrics, summed by verb, resource and
// subresource ("APPLY resourceclaims/status"). The real kube-apiserver serves it; so does the test
// kit's, with the same labels.
func (a *apiServer) requestCounts(ctx context.Context) (map[string]float64, error) {
	raw, err := a.client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the API server's /metrics: %w", err)
	}
	out := map[string]float64{}
	s := bufio.NewScanner(bytes.NewReader(raw))
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		end := strings.LastIndexByte(line, '}')
		if end < 0 {
			continue
		}
		labels := parseLabels(line[len("apiserver_request_total{"):end])
		v, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
		if err != nil {
			continue
		}
		key := labels["verb"] + " " + labels["resource"]
		if labels["subresource"] != "" {
			key += "/" + labels["subresource"]
		}
		out[key] += v
	}
	return out, nil
}

func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for len(s) > 0 {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			break
		}
		name := strings.TrimLeft(s[:eq], ",")
		rest := s[eq+2:]
		end := strings.IndexByte(rest, '"')
		if end < 0 {
			break
		}
		out[name] = rest[:end]
		s = rest[end+1:]
	}
	return out
}

// requestsOf sums the counters in after-before whose resource is in resources (plural names, with
// or without a subresource), by key.
func requestDelta(before, after map[string]float64, resources ...string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		d := v - before[k]
		if d <= 0 {
			continue
		}
		for _, r := range resources {
			res := k[strings.IndexByte(k, ' ')+1:]
			if res == r || strings.HasPrefix(res, r+"/") {
				out[k] += d
			}
		}
	}
	return out
}

func sum(m map[string]float64, filter func(key string) bool) float64 {
	t := 0.0
	for k, v := range m {
		if filter == nil || filter(k) {
			t += v
		}
	}
	return t
}

// sliceWatch follows the ResourceSlices of one node and records when devices appear.
type sliceWatch struct {
	mu        sync.Mutex
	perSlice  map[string]int
	first     time.Time
	complete  time.Time
	want      int
	completed chan struct{}
	stop      func()
}

func (a *apiServer) watchSlices(ctx context.Context, node string, want int) (*sliceWatch, error) {
	ctx, cancel := context.WithCancel(ctx)
	w, err := a.client.ResourceV1().ResourceSlices().Watch(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector(resourceapi.ResourceSliceSelectorNodeName, node).String(),
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("watch the slices of %s: %w", node, err)
	}
	sw := &sliceWatch{perSlice: map[string]int{}, want: want, completed: make(chan struct{}), stop: func() { cancel(); w.Stop() }}
	go func() {
		for ev := range w.ResultChan() {
			now := time.Now()
			slice, ok := ev.Object.(*resourceapi.ResourceSlice)
			if !ok || slice.Spec.NodeName == nil || *slice.Spec.NodeName != node {
				continue
			}
			sw.mu.Lock()
			switch ev.Type {
			case watch.Added, watch.Modified:
				sw.perSlice[slice.Name] = len(slice.Spec.Devices)
				if sw.first.IsZero() {
					sw.first = now
				}
			case watch.Deleted:
				delete(sw.perSlice, slice.Name)
			}
			total := 0
			for _, n := range sw.perSlice {
				total += n
			}
			if total >= sw.want && sw.complete.IsZero() {
				sw.complete = now
				close(sw.completed)
			}
			sw.mu.Unlock()
		}
	}()
	return sw, nil
}

func (sw *sliceWatch) times() (first, complete time.Time) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.first, sw.complete
}
