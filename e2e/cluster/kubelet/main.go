// Command e2e-kubelet is the DRA half of a kubelet for one API-only node, built from the real
// kubelet packages of the pinned Kubernetes version: the plugin manager (pkg/kubelet/pluginmanager)
// watches a registry folder and registers DRA drivers through their registration sockets, and the
// DRA manager (pkg/kubelet/cm/dra) prepares and unprepares the ResourceClaims of the pods bound to
// the node, with its own checkpoint in the state folder, exactly as the kubelet does before it
// starts a pod's containers and after they stopped.
//
// No container runs. A pod whose resources are prepared is reported Running (with the health of
// its devices in its container statuses, as 1.37 reports it); a pod being deleted is unprepared
// and then removed with grace period 0, as the kubelet's status manager does once its containers
// are gone. The health in the pod status is generated again when the DRA manager reports a change
// and every --sync-frequency, as the kubelet's periodic pod sync does (kubelet_pods.go:1971-1973,
// default 1 min from apis/config/v1beta1/defaults.go:76-77): a device whose health went stale
// without a change reported (a driver that fell silent) only shows as Unknown then.
//
// Each step goes to stdout as one JSON object per line ({"event": ...}); the kubelet packages'
// own logs go to stderr (klog, -v to choose the verbosity).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/dra"
	"k8s.io/kubernetes/pkg/kubelet/config"
	"k8s.io/kubernetes/pkg/kubelet/pluginmanager"
	plugincache "k8s.io/kubernetes/pkg/kubelet/pluginmanager/cache"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig with the node's credentials (system:node:<name>)")
	nodeName := flag.String("node-name", "", "the Node this kubelet serves")
	registryDir := flag.String("registry-dir", "", "plugin registration folder to watch (the kubelet's plugins_registry)")
	stateDir := flag.String("state-dir", "", "folder of the DRA manager's checkpoint (the kubelet's root dir)")
	gates := flag.String("feature-gates", "", "feature gates, as for the kubelet")
	syncFrequency := flag.Duration("sync-frequency", time.Minute, "how often the pod statuses are generated again, as the kubelet's syncFrequency")
	klog.InitFlags(nil)
	flag.Parse()
	if *kubeconfig == "" || *nodeName == "" || *registryDir == "" || *stateDir == "" {
		fmt.Fprintln(os.Stderr, "e2e-kubelet: --kubeconfig, --node-name, --registry-dir and --state-dir are required")
		os.Exit(2)
	}
	if *gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*gates); err != nil {
			fmt.Fprintf(os.Stderr, "e2e-kubelet: --feature-gates: %v\n", err)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *kubeconfig, *nodeName, *registryDir, *stateDir, *syncFrequency); err != nil {
		emit("failed", attrs{"error": err.Error()})
		os.Exit(1)
	}
	emit("stopped", nil)
}

// ---- the JSON event log --------------------------------------------------------------------

type attrs map[string]any

var logMu sync.Mutex

func emit(event string, f attrs) {
	line := attrs{"time": time.Now().UTC().Format(time.RFC3339Nano), "event": event}
	for k, v := range f {
		line[k] = v
	}
	b, err := json.Marshal(line)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"event":"log-error","error":%q}`, err.Error()))
	}
	logMu.Lock()
	defer logMu.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

func podFields(pod *v1.Pod) attrs {
	return attrs{"pod": pod.Namespace + "/" + pod.Name, "podUID": string(pod.UID)}
}

// loggingHandler passes the plugin manager's calls on to the DRA manager's handler and records
// each one with its outcome.
type loggingHandler struct{ next plugincache.PluginHandler }

func (h loggingHandler) ValidatePlugin(ctx context.Context, name, endpoint string, versions []string) error {
	err := h.next.ValidatePlugin(ctx, name, endpoint, versions)
	emit("validate", attrs{"driver": name, "endpoint": endpoint, "versions": versions, "error": errText(err)})
	return err
}

func (h loggingHandler) RegisterPlugin(ctx context.Context, name, endpoint string, versions []string, timeout *time.Duration) error {
	err := h.next.RegisterPlugin(ctx, name, endpoint, versions, timeout)
	if err != nil {
		emit("register-failed", attrs{"driver": name, "endpoint": endpoint, "versions": versions, "error": err.Error()})
	} else {
		emit("registered", attrs{"driver": name, "endpoint": endpoint, "versions": versions})
	}
	return err
}

func (h loggingHandler) DeRegisterPlugin(ctx context.Context, name, endpoint string) {
	h.next.DeRegisterPlugin(ctx, name, endpoint)
	emit("deregistered", attrs{"driver": name, "endpoint": endpoint})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ---- the node ------------------------------------------------------------------------------

type podState struct {
	pod        *v1.Pod
	gone       bool // deleted from the API server
	prepared   bool // PrepareResources succeeded and the pod was reported Running
	unprepared bool
	statusDue  bool // device health changed: the pod status needs rewriting
}

type node struct {
	name    string
	client  kubernetes.Interface
	manager *dra.Manager
	queue   workqueue.TypedRateLimitingInterface[types.UID]

	mu   sync.Mutex
	pods map[types.UID]*podState
}

func run(ctx context.Context, kubeconfig, nodeName, registryDir, stateDir string, syncFrequency time.Duration) error {
	logger := klog.FromContext(ctx)
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	restConfig.QPS, restConfig.Burst = 50, 100
	restConfig.UserAgent = "e2e-kubelet/" + nodeName
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	manager, err := dra.NewManager(logger, client, stateDir)
	if err != nil {
		return fmt.Errorf("DRA manager: %w", err)
	}
	n := &node{
		name:    nodeName,
		client:  client,
		manager: manager,
		queue: workqueue.NewTypedRateLimitingQueue[types.UID](
			workqueue.NewTypedItemExponentialFailureRateLimiter[types.UID](500*time.Millisecond, 10*time.Second)),
		pods: map[types.UID]*podState{},
	}

	// The kubelet's pod source: the pods bound to this node.
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(
		func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", nodeName).String()
		}))
	podInformer := factory.Core().V1().Pods().Informer()
	if _, err := podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { n.seen(obj.(*v1.Pod), false) },
		UpdateFunc: func(_, obj any) { n.seen(obj.(*v1.Pod), false) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pod, ok := obj.(*v1.Pod); ok {
				n.seen(pod, true)
			}
		},
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	sourcesReady := config.NewSourcesReady(func(sets.Set[string]) bool { return podInformer.HasSynced() })

	getNode := func(ctx context.Context) (*v1.Node, error) {
		return client.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	}
	if err := manager.Start(ctx, n.activePods, getNode, sourcesReady); err != nil {
		return fmt.Errorf("start DRA manager: %w", err)
	}
	defer manager.Stop()

	plugins := pluginmanager.NewPluginManager(registryDir, &record.FakeRecorder{})
	plugins.AddHandler(registerapi.DRAPlugin, loggingHandler{manager.GetWatcherHandler()})
	go plugins.Run(ctx, sourcesReady, ctx.Done())

	if !cache.WaitForCacheSync(ctx.Done(), podInformer.HasSynced) {
		return ctx.Err()
	}
	emit("started", attrs{"node": nodeName, "registryDir": registryDir, "stateDir": stateDir})

	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case u := <-manager.Updates():
				n.healthChanged(u.PodUIDs)
			}
		}
	}()
	go func() {
		tick := time.NewTicker(syncFrequency)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				n.periodicSync()
			}
		}
	}()
	go func() { <-ctx.Done(); n.queue.ShutDown() }()
	for n.work(ctx) {
	}
	return nil
}

func (n *node) seen(pod *v1.Pod, deleted bool) {
	n.mu.Lock()
	s := n.pods[pod.UID]
	if s == nil {
		s = &podState{}
		n.pods[pod.UID] = s
	}
	s.pod = pod
	s.gone = s.gone || deleted
	n.mu.Unlock()
	n.queue.Add(pod.UID)
}

func (n *node) healthChanged(uids []string) {
	n.mu.Lock()
	for _, uid := range uids {
		if s := n.pods[types.UID(uid)]; s != nil {
			s.statusDue = true
			n.queue.Add(types.UID(uid))
		}
	}
	n.mu.Unlock()
}

// periodicSync generates the status of every running pod again; writeStatus writes it only when
// the devices' health changed, as the status manager writes only changed statuses.
func (n *node) periodicSync() {
	n.mu.Lock()
	for uid, s := range n.pods {
		if s.prepared && !s.gone && !terminating(s.pod) {
			s.statusDue = true
			n.queue.Add(uid)
		}
	}
	n.mu.Unlock()
}

// activePods is the DRA manager's view of the pods that may still use their claims; its
// reconcile loop unprepares the claims of every other pod it has prepared.
func (n *node) activePods() []*v1.Pod {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []*v1.Pod
	for _, s := range n.pods {
		if !s.gone && !terminating(s.pod) {
			out = append(out, s.pod)
		}
	}
	return out
}

func terminating(pod *v1.Pod) bool {
	return pod.DeletionTimestamp != nil || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
}

func (n *node) work(ctx context.Context) bool {
	uid, shutdown := n.queue.Get()
	if shutdown {
		return false
	}
	defer n.queue.Done(uid)
	if err := n.sync(ctx, uid); err != nil {
		n.queue.AddRateLimited(uid)
	} else {
		n.queue.Forget(uid)
	}
	return true
}

// sync does for one pod what the kubelet's pod worker does with its resources: prepare them
// before the containers start, unprepare them once the pod terminates.
func (n *node) sync(ctx context.Context, uid types.UID) error {
	n.mu.Lock()
	s := n.pods[uid]
	var pod *v1.Pod
	var gone, prepared, unprepared, statusDue bool
	if s != nil {
		pod, gone, prepared, unprepared, statusDue = s.pod, s.gone, s.prepared, s.unprepared, s.statusDue
		s.statusDue = false
	}
	n.mu.Unlock()
	if s == nil {
		return nil
	}
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "pod", klog.KObj(pod))
	ctx = klog.NewContext(ctx, logger)

	if gone || terminating(pod) {
		if !unprepared {
			if err := n.manager.UnprepareResources(ctx, pod); err != nil {
				emit("unprepare-failed", with(podFields(pod), attrs{"error": err.Error()}))
				return err
			}
			emit("unprepared", podFields(pod))
			n.update(uid, func(s *podState) { s.unprepared = true })
		}
		if gone {
			n.mu.Lock()
			delete(n.pods, uid)
			n.mu.Unlock()
			return nil
		}
		if pod.DeletionTimestamp != nil {
			// The containers are gone: finish the deletion, as the status manager does.
			err := n.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name,
				metav1.DeleteOptions{GracePeriodSeconds: new(int64(0)), Preconditions: &metav1.Preconditions{UID: &uid}})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				emit("delete-failed", with(podFields(pod), attrs{"error": err.Error()}))
				return err
			}
		}
		return nil
	}

	if !prepared {
		if err := n.manager.PrepareResources(ctx, pod); err != nil {
			emit("prepare-failed", with(podFields(pod), attrs{"error": err.Error()}))
			return err
		}
		containers, err := n.cdiDevices(pod)
		if err != nil {
			emit("resources-failed", with(podFields(pod), attrs{"error": err.Error()}))
			return err
		}
		emit("prepared", with(podFields(pod), attrs{"containers": containers}))
		n.update(uid, func(s *podState) { s.prepared = true })
		statusDue = true
	}
	if statusDue {
		if err := n.writeStatus(ctx, pod); err != nil {
			n.update(uid, func(s *podState) { s.statusDue = true })
			emit("status-failed", with(podFields(pod), attrs{"error": err.Error()}))
			return err
		}
	}
	return nil
}

func (n *node) update(uid types.UID, f func(*podState)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if s := n.pods[uid]; s != nil {
		f(s)
	}
}

func with(a, b attrs) attrs {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// cdiDevices is what the kubelet hands the container runtime: the CDI device ids per container.
func (n *node) cdiDevices(pod *v1.Pod) (map[string][]string, error) {
	out := map[string][]string{}
	all := append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
	for i := range all {
		info, err := n.manager.GetResources(pod, &all[i])
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", all[i].Name, err)
		}
		ids := []string{}
		for _, d := range info.CDIDevices {
			ids = append(ids, d.Name)
		}
		out[all[i].Name] = ids
	}
	return out, nil
}

// writeStatus reports the pod Running, its init containers completed, and the health of the
// devices its containers use (containerStatuses[].allocatedResourcesStatus), the way the
// kubelet's status manager would once its containers started.
func (n *node) writeStatus(ctx context.Context, pod *v1.Pod) error {
	var health map[string][]v1.ResourceStatus
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := n.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if current.UID != pod.UID || current.DeletionTimestamp != nil {
			return nil
		}
		// A copy: the DRA manager rewrites the resource statuses in place.
		before := allocatedResourcesStatus(current.Status.DeepCopy())
		status := current.Status.DeepCopy()
		now := metav1.Now()
		status.Phase = v1.PodRunning
		if status.StartTime == nil {
			status.StartTime = &now
		}
		status.InitContainerStatuses = containerStatuses(current.Spec.InitContainers, status.InitContainerStatuses, true, now)
		status.ContainerStatuses = containerStatuses(current.Spec.Containers, status.ContainerStatuses, false, now)
		for _, c := range []v1.PodConditionType{v1.PodReadyToStartContainers, v1.PodInitialized, v1.ContainersReady, v1.PodReady} {
			setCondition(status, c, now)
		}
		n.manager.UpdateAllocatedResourcesStatus(klog.FromContext(ctx), current, status)
		health = allocatedResourcesStatus(status)
		if current.Status.Phase == v1.PodRunning && apiequality.Semantic.DeepEqual(before, health) {
			health = nil // nothing changed: no write, no event
			return nil
		}
		current.Status = *status
		_, err = n.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, current, metav1.UpdateOptions{})
		return err
	})
	if err != nil || health == nil {
		return err
	}
	emit("status", with(podFields(pod), attrs{"phase": string(v1.PodRunning), "allocatedResourcesStatus": health}))
	return nil
}

func allocatedResourcesStatus(status *v1.PodStatus) map[string][]v1.ResourceStatus {
	out := map[string][]v1.ResourceStatus{}
	for _, cs := range status.ContainerStatuses {
		out[cs.Name] = cs.AllocatedResourcesStatus
	}
	return out
}

func containerStatuses(containers []v1.Container, old []v1.ContainerStatus, completed bool, now metav1.Time) []v1.ContainerStatus {
	out := make([]v1.ContainerStatus, 0, len(containers))
	for _, c := range containers {
		cs := v1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: c.Image, ContainerID: "e2e-kubelet://" + c.Name}
		for _, o := range old {
			if o.Name == c.Name {
				cs = o
			}
		}
		if completed {
			cs.State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}}
		} else if cs.State.Running == nil {
			cs.State = v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: now}}
			cs.Ready, cs.Started = true, new(true)
		}
		out = append(out, cs)
	}
	return out
}

func setCondition(status *v1.PodStatus, t v1.PodConditionType, now metav1.Time) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			if status.Conditions[i].Status != v1.ConditionTrue {
				status.Conditions[i].Status, status.Conditions[i].LastTransitionTime = v1.ConditionTrue, now
			}
			return
		}
	}
	status.Conditions = append(status.Conditions, v1.PodCondition{Type: t, Status: v1.ConditionTrue, LastTransitionTime: now})
}
