package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	metaapply "k8s.io/client-go/applyconfigurations/meta/v1"
	resourceapply "k8s.io/client-go/applyconfigurations/resource/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
)

const (
	statePrepareStarted   = "PrepareStarted"
	statePrepareCompleted = "PrepareCompleted"
	cdiVersion            = "0.5.0"
	cdiClass              = "claim"
)

// record is one claim's checkpoint, a file of its own: preparing one claim costs the same however
// many claims the node holds.
type record struct {
	Namespace string           `json:"namespace"`
	Name      string           `json:"name"`
	UID       types.UID        `json:"uid"`
	State     string           `json:"state"`
	Devices   []recordedDevice `json:"devices"`
}

type recordedDevice struct {
	Request      string   `json:"request"`
	Pool         string   `json:"pool"`
	Device       string   `json:"device"`
	UUID         string   `json:"uuid"`
	CDIDeviceIDs []string `json:"cdiDeviceIds,omitempty"`
}

type cdiSpec struct {
	CDIVersion string      `json:"cdiVersion"`
	Kind       string      `json:"kind"`
	Devices    []cdiDevice `json:"devices"`
}

type cdiDevice struct {
	Name           string            `json:"name"`
	ContainerEdits cdiContainerEdits `json:"containerEdits"`
}

type cdiContainerEdits struct {
	Env []string `json:"env"`
}

// driver implements kubeletplugin.DRAPlugin for the simulated devices.
type driver struct {
	name          string
	inv           *inventory
	client        kubernetes.Interface
	checkpointDir string
	cdiDir        string
	cdiKind       string
	fatal         context.CancelCauseFunc
	// shared: another instance (a rolling update) may prepare and unprepare between our calls,
	// so the overlap guard is read from the records on disk before each reservation.
	shared    bool
	mu        sync.Mutex
	exclusive map[string]types.UID // device name to the claim holding it
}

func newDriver(name, node string, inv *inventory, client kubernetes.Interface, pluginDir, cdiDir string, shared bool, fatal context.CancelCauseFunc) (*driver, error) {
	d := &driver{
		name:          name,
		inv:           inv,
		client:        client,
		checkpointDir: filepath.Join(pluginDir, "checkpoints"),
		cdiDir:        cdiDir,
		cdiKind:       "k8s." + name + "/" + cdiClass,
		fatal:         fatal,
		shared:        shared,
		exclusive:     map[string]types.UID{},
	}
	if err := os.MkdirAll(d.checkpointDir, 0o700); err != nil {
		return nil, err
	}
	if err := d.recover(); err != nil {
		return nil, fmt.Errorf("recover from the checkpoint records: %w", err)
	}
	return d, nil
}

// recover rolls back interrupted prepares and rebuilds the overlap guard from completed records.
func (d *driver) recover() error {
	records, err := d.readRecords()
	if err != nil {
		return err
	}
	kept, rolledBack := 0, 0
	for _, rec := range records {
		if rec.State != statePrepareCompleted {
			if err := d.removeClaimFiles(rec.UID); err != nil {
				return err
			}
			rolledBack++
			continue
		}
		for _, dev := range rec.Devices {
			d.exclusive[dev.Device] = rec.UID
		}
		kept++
	}
	klog.InfoS("recovered prepared claims", "kept", kept, "rolledBack", rolledBack)
	return nil
}

func (d *driver) readRecords() ([]*record, error) {
	entries, err := os.ReadDir(d.checkpointDir)
	if err != nil {
		return nil, err
	}
	var out []*record
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		rec, err := d.readRecord(types.UID(strings.TrimSuffix(e.Name(), ".json")))
		if err != nil {
			return nil, err
		}
		if rec != nil {
			out = append(out, rec)
		}
	}
	return out, nil
}

func (d *driver) PrepareResourceClaims(ctx context.Context, claims []*resourceapi.ResourceClaim) (map[types.UID]kubeletplugin.PrepareResult, error) {
	result := make(map[types.UID]kubeletplugin.PrepareResult, len(claims))
	for _, claim := range claims {
		start := time.Now()
		devices, err := d.prepareClaim(ctx, claim)
		if err != nil {
			klog.FromContext(ctx).Error(err, "prepare failed", "claim", klog.KObj(claim), "uid", claim.UID)
			result[claim.UID] = kubeletplugin.PrepareResult{Err: err}
			continue
		}
		klog.FromContext(ctx).Info("prepared", "claim", klog.KObj(claim), "uid", claim.UID, "devices", len(devices), "took", time.Since(start))
		result[claim.UID] = kubeletplugin.PrepareResult{Devices: devices}
	}
	return result, nil
}

func (d *driver) prepareClaim(ctx context.Context, claim *resourceapi.ResourceClaim) ([]kubeletplugin.Device, error) {
	rec, err := d.readRecord(claim.UID)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.State == statePrepareCompleted {
		// A repeated prepare: answer from the record, apply the status again.
		if err := d.applyStatus(ctx, claim, rec); err != nil {
			return nil, err
		}
		return kubeletDevices(rec), nil
	}
	if rec != nil {
		if err := d.rollBack(rec.UID); err != nil {
			return nil, err
		}
	}

	rec = &record{Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID, State: statePrepareStarted}
	for _, r := range claim.Status.Allocation.Devices.Results {
		if r.Driver != d.name {
			continue
		}
		dev, ok := d.inv.byName[r.Device]
		if r.Pool != d.inv.node || !ok {
			return nil, fmt.Errorf("claim %s: device %s/%s is not a device of this node (pool %s)", klog.KObj(claim), r.Pool, r.Device, d.inv.node)
		}
		rec.Devices = append(rec.Devices, recordedDevice{Request: r.Request, Pool: r.Pool, Device: r.Device, UUID: dev.uuid})
	}
	if len(rec.Devices) == 0 {
		return nil, nil
	}
	if err := d.reserve(claim.UID, rec.Devices); err != nil {
		return nil, fmt.Errorf("claim %s: %w", klog.KObj(claim), err)
	}
	if err := d.writeRecord(rec); err != nil {
		d.release(claim.UID)
		return nil, err
	}
	spec := cdiSpec{CDIVersion: cdiVersion, Kind: d.cdiKind}
	for i, dev := range rec.Devices {
		name := string(claim.UID) + "-" + dev.Device
		variable := envPrefix + envID(dev.Device)
		spec.Devices = append(spec.Devices, cdiDevice{
			Name: name,
			ContainerEdits: cdiContainerEdits{Env: []string{
				variable + "=" + dev.UUID,
				variable + "_REQUEST=" + resourceclaim.BaseRequestRef(dev.Request),
			}},
		})
		rec.Devices[i].CDIDeviceIDs = []string{d.cdiKind + "=" + name}
	}
	content, err := json.Marshal(spec)
	if err != nil {
		return nil, d.undo(claim.UID, err)
	}
	if err := writeFileDurably(d.cdiSpecPath(claim.UID), content, 0o644); err != nil {
		return nil, d.undo(claim.UID, fmt.Errorf("write the CDI spec: %w", err))
	}
	rec.State = statePrepareCompleted
	if err := d.writeRecord(rec); err != nil {
		return nil, d.undo(claim.UID, err)
	}
	if err := d.applyStatus(ctx, claim, rec); err != nil {
		// Prepared; the kubelet retries and the repeated prepare applies the status again.
		return nil, err
	}
	return kubeletDevices(rec), nil
}

func kubeletDevices(rec *record) []kubeletplugin.Device {
	out := make([]kubeletplugin.Device, 0, len(rec.Devices))
	for _, dev := range rec.Devices {
		out = append(out, kubeletplugin.Device{
			Requests:     []string{dev.Request},
			PoolName:     dev.Pool,
			DeviceName:   dev.Device,
			CDIDeviceIDs: dev.CDIDeviceIDs,
		})
	}
	return out
}

func (d *driver) reserve(uid types.UID, devices []recordedDevice) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shared {
		records, err := d.readRecords()
		if err != nil {
			return err
		}
		d.exclusive = map[string]types.UID{}
		for _, rec := range records {
			for _, dev := range rec.Devices {
				d.exclusive[dev.Device] = rec.UID
			}
		}
	}
	for _, dev := range devices {
		if holder, ok := d.exclusive[dev.Device]; ok && holder != uid {
			return fmt.Errorf("device %s/%s is already prepared for claim %s", dev.Pool, dev.Device, holder)
		}
	}
	for _, dev := range devices {
		d.exclusive[dev.Device] = uid
	}
	return nil
}

func (d *driver) release(uid types.UID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for name, holder := range d.exclusive {
		if holder == uid {
			delete(d.exclusive, name)
		}
	}
}

func (d *driver) undo(uid types.UID, cause error) error {
	if err := d.rollBack(uid); err != nil {
		return fmt.Errorf("%w (and rolling back failed: %v)", cause, err)
	}
	return cause
}

func (d *driver) rollBack(uid types.UID) error {
	if err := d.removeClaimFiles(uid); err != nil {
		return err
	}
	d.release(uid)
	return nil
}

// applyStatus applies each device's Ready condition and data, as spi-fake's provider reports them.
func (d *driver) applyStatus(ctx context.Context, claim *resourceapi.ResourceClaim, rec *record) error {
	now := metav1.Now()
	status := resourceapply.ResourceClaimStatus()
	for _, dev := range rec.Devices {
		transition := now
		for _, prev := range claim.Status.Devices {
			if prev.Driver == d.name && prev.Pool == dev.Pool && prev.Device == dev.Device {
				if c := findCondition(prev.Conditions, "Ready"); c != nil && c.Status == metav1.ConditionTrue {
					transition = c.LastTransitionTime
				}
			}
		}
		data, err := json.Marshal(map[string]string{"model": deviceModel, "uuid": dev.UUID})
		if err != nil {
			return err
		}
		status.WithDevices(resourceapply.AllocatedDeviceStatus().
			WithDriver(d.name).
			WithPool(dev.Pool).
			WithDevice(dev.Device).
			WithConditions(metaapply.Condition().
				WithType("Ready").
				WithStatus(metav1.ConditionTrue).
				WithReason("Prepared").
				WithMessage("fake device " + dev.Device + " is ready").
				WithLastTransitionTime(transition)).
			WithData(runtime.RawExtension{Raw: data}))
	}
	ac := resourceapply.ResourceClaim(claim.Name, claim.Namespace).WithUID(claim.UID).WithStatus(status)
	if _, err := d.client.ResourceV1().ResourceClaims(claim.Namespace).ApplyStatus(ctx, ac, metav1.ApplyOptions{FieldManager: d.name, Force: true}); err != nil {
		return fmt.Errorf("claim %s: devices are prepared, but applying their status failed: %w", klog.KObj(claim), err)
	}
	return nil
}

func findCondition(conditions []metav1.Condition, conditionType string) *metav1.Condition {
	for i := range conditions {
		if conditions[i].Type == conditionType {
			return &conditions[i]
		}
	}
	return nil
}

func (d *driver) UnprepareResourceClaims(ctx context.Context, claims []kubeletplugin.NamespacedObject) (map[types.UID]error, error) {
	result := make(map[types.UID]error, len(claims))
	for _, claim := range claims {
		err := d.rollBack(claim.UID)
		if err != nil {
			klog.FromContext(ctx).Error(err, "unprepare failed", "claim", claim.NamespacedName, "uid", claim.UID)
		} else {
			klog.FromContext(ctx).Info("unprepared", "claim", claim.NamespacedName, "uid", claim.UID)
		}
		result[claim.UID] = err
	}
	return result, nil
}

// HandleError follows the helper's advice: log, and stop the driver when the error is fatal.
func (d *driver) HandleError(ctx context.Context, err error, msg string) {
	klog.FromContext(ctx).Error(err, msg)
	if !errors.Is(err, kubeletplugin.ErrRecoverable) {
		d.fatal(fmt.Errorf("%s: %w", msg, err))
	}
}

// WatchHealthStatus reports every device healthy once, then again within the kubelet's timeout.
func (d *driver) WatchHealthStatus(ctx context.Context, reports chan<- kubeletplugin.DeviceHealthReport) error {
	ticker := time.NewTicker(10 * time.Second)
	defer ticker.Stop()
	for {
		report := kubeletplugin.DeviceHealthReport{}
		now := time.Now()
		for _, dev := range d.inv.devices {
			report.Devices = append(report.Devices, kubeletplugin.DeviceHealth{
				PoolName: d.inv.node, DeviceName: dev.name, Health: kubeletplugin.HealthStatusHealthy, LastUpdated: now,
			})
		}
		select {
		case <-ctx.Done():
			return nil
		case reports <- report:
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

func (d *driver) recordPath(uid types.UID) string {
	return filepath.Join(d.checkpointDir, string(uid)+".json")
}

func (d *driver) cdiSpecPath(uid types.UID) string {
	return filepath.Join(d.cdiDir, "k8s."+d.name+"-"+cdiClass+"_"+string(uid)+".json")
}

func (d *driver) readRecord(uid types.UID) (*record, error) {
	data, err := os.ReadFile(d.recordPath(uid))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec := &record{}
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, fmt.Errorf("checkpoint record %s: %w", d.recordPath(uid), err)
	}
	return rec, nil
}

func (d *driver) writeRecord(rec *record) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := writeFileDurably(d.recordPath(rec.UID), data, 0o600); err != nil {
		return fmt.Errorf("write the checkpoint record: %w", err)
	}
	return nil
}

// removeClaimFiles removes the CDI spec, then the record, each removal made durable.
func (d *driver) removeClaimFiles(uid types.UID) error {
	if err := removeDurably(d.cdiSpecPath(uid)); err != nil {
		return fmt.Errorf("remove the CDI spec: %w", err)
	}
	if err := removeDurably(d.recordPath(uid)); err != nil {
		return fmt.Errorf("remove the checkpoint record: %w", err)
	}
	return nil
}
