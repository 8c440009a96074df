package main

import (
	"crypto/md5"
	"fmt"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/resourceslice"
	"k8s.io/utils/ptr"
)

// Published like spi-fake's defaults (type gpu, 80Gi, no partitions): one node-local pool named
// after the node, devices gpu-0 ... gpu-<n-1>.
const (
	deviceType    = "gpu"
	deviceMemory  = "80Gi"
	deviceModel   = "FAKE-80"
	driverVersion = "1.0.0"
	envPrefix     = "DRA_FAKE_DEVICE_"
	// The API's limit on devices per ResourceSlice, the default slice size. dra4j's layout packs
	// as many unless a driver reports health, which makes 64-device slices
	// (resourceapi.ResourceSliceMaxDevicesWithTaintsOrConsumesCounters): --devices-per-slice 64.
	maxDevicesPerSlice = resourceapi.ResourceSliceMaxDevices
)

type device struct {
	name  string
	uuid  string
	index int
}

type inventory struct {
	driver   string
	node     string
	perSlice int
	devices  []device
	byName   map[string]device
}

func newInventory(driver, node string, n, perSlice int) *inventory {
	inv := &inventory{driver: driver, node: node, perSlice: perSlice, byName: make(map[string]device, n)}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("gpu-%d", i)
		d := device{name: name, uuid: nameUUID(driver + "/" + node + "/" + name), index: i}
		inv.devices = append(inv.devices, d)
		inv.byName[name] = d
	}
	return inv
}

// nameUUID is a version 3 (MD5) UUID of the bytes alone, without a namespace: the value of
// Java's UUID.nameUUIDFromBytes, so both drivers publish the same uuid attribute.
func nameUUID(name string) string {
	b := md5.Sum([]byte(name))
	b[6] = b[6]&0x0f | 0x30
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// envID is the device's part of the environment variable names: "gpu-3" gives "3".
func envID(device string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(device, "gpu-"), "-", "_"))
}

func (inv *inventory) pool() resourceslice.Pool {
	memory := resource.MustParse(deviceMemory)
	var slices []resourceslice.Slice
	for start := 0; start < len(inv.devices); start += inv.perSlice {
		end := min(start+inv.perSlice, len(inv.devices))
		devices := make([]resourceapi.Device, 0, end-start)
		for _, d := range inv.devices[start:end] {
			devices = append(devices, resourceapi.Device{
				Name: d.name,
				Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
					"type":          {StringValue: ptr.To(deviceType)},
					"uuid":          {StringValue: ptr.To(d.uuid)},
					"index":         {IntValue: ptr.To(int64(d.index))},
					"model":         {StringValue: ptr.To(deviceModel)},
					"driverVersion": {VersionValue: ptr.To(driverVersion)},
				},
				Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
					"memory": {Value: memory},
				},
			})
		}
		slices = append(slices, resourceslice.Slice{Devices: devices})
	}
	if len(slices) == 0 {
		slices = []resourceslice.Slice{{}}
	}
	return resourceslice.Pool{Slices: slices}
}
