// metadata-reader is a test peer: the reader that workloads use for DRA device metadata
// (KEP-5304), k8s.io/dynamic-resource-allocation/devicemetadata v0.37.2, unmodified. dra4j's tests
// run it on the files dra4j writes and compare what it decoded with what they expect.
//
//	metadata-reader read claim|template DRIVER NAME REQUEST
//	    ReadResourceClaimMetadataWithDriverName or ReadResourceClaimTemplateMetadataWithDriverName
//	    (the in-container path under /var/run/kubernetes.io/dra-device-attributes), then the same
//	    file once more through DecodeMetadataFromStream with its validation result.
//	metadata-reader mount CDI-SPEC claim|template DRIVER NAME REQUEST
//	    On the host: finds, in a CDI spec, the mount whose containerPath is the upstream path
//	    (metadata.ResourceClaimFilePath / ResourceClaimTemplateFilePath) and decodes its hostPath.
//	metadata-reader decode FILE
//	    DecodeMetadataFromStream with its validation result.
//
// It prints one JSON object: the container path (read, mount), the host path (mount), the
// group/version/kind decoded, the validation error (null when valid) and the decoded object
// converted to metadata.resource.k8s.io/v1beta1. A decode error exits 1 with the error on stderr.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/dynamic-resource-allocation/api/metadata"
	"k8s.io/dynamic-resource-allocation/api/metadata/install"
	metadatav1beta1 "k8s.io/dynamic-resource-allocation/api/metadata/v1beta1"
	"k8s.io/dynamic-resource-allocation/devicemetadata"
)

type result struct {
	ContainerPath string                          `json:"containerPath,omitempty"`
	HostPath      string                          `json:"hostPath,omitempty"`
	GVK           string                          `json:"gvk"`
	Validation    *string                         `json:"validation"`
	Metadata      *metadatav1beta1.DeviceMetadata `json:"metadata"`
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "metadata-reader:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 5 && args[0] == "read":
		path, err := containerPath(args[1], args[2], args[3], args[4])
		if err != nil {
			return err
		}
		var dm *metadata.DeviceMetadata
		if args[1] == "claim" {
			dm, err = devicemetadata.ReadResourceClaimMetadataWithDriverName(args[2], args[3], args[4])
		} else {
			dm, err = devicemetadata.ReadResourceClaimTemplateMetadataWithDriverName(args[2], args[3], args[4])
		}
		if err != nil {
			return err
		}
		r, err := decode(path)
		if err != nil {
			return err
		}
		// What the Read function returned is what is printed; the second decode adds the version
		// and the validation result.
		if r.Metadata, err = toV1beta1(dm); err != nil {
			return err
		}
		r.ContainerPath = path
		return print(r)
	case len(args) == 6 && args[0] == "mount":
		path, err := containerPath(args[2], args[3], args[4], args[5])
		if err != nil {
			return err
		}
		host, err := hostPath(args[1], path)
		if err != nil {
			return err
		}
		r, err := decode(host)
		if err != nil {
			return err
		}
		r.ContainerPath, r.HostPath = path, host
		return print(r)
	case len(args) == 2 && args[0] == "decode":
		r, err := decode(args[1])
		if err != nil {
			return err
		}
		return print(r)
	}
	return fmt.Errorf("usage: read claim|template DRIVER NAME REQUEST | mount CDI-SPEC claim|template DRIVER NAME REQUEST | decode FILE (got %q)", args)
}

func containerPath(layout, driver, name, request string) (string, error) {
	switch layout {
	case "claim":
		return metadata.ResourceClaimFilePath(driver, name, request), nil
	case "template":
		return metadata.ResourceClaimTemplateFilePath(driver, name, request), nil
	}
	return "", fmt.Errorf("layout %q: want claim or template", layout)
}

// hostPath finds the mount of a CDI spec whose containerPath is path.
func hostPath(specFile, path string) (string, error) {
	data, err := os.ReadFile(specFile)
	if err != nil {
		return "", err
	}
	var spec struct {
		Devices []struct {
			ContainerEdits struct {
				Mounts []struct {
					HostPath      string `json:"hostPath"`
					ContainerPath string `json:"containerPath"`
				} `json:"mounts"`
			} `json:"containerEdits"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		return "", fmt.Errorf("%s: %w", specFile, err)
	}
	for _, d := range spec.Devices {
		for _, m := range d.ContainerEdits.Mounts {
			if m.ContainerPath == path {
				return m.HostPath, nil
			}
		}
	}
	return "", fmt.Errorf("%s: no mount with containerPath %s", specFile, path)
}

func decode(file string) (result, error) {
	f, err := os.Open(file)
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	var dm metadata.DeviceMetadata
	var validation error
	var gvk schema.GroupVersionKind
	if err := devicemetadata.DecodeMetadataFromStream(json.NewDecoder(f), &dm,
		devicemetadata.DecodeMetadataWithValidationResult(&validation),
		devicemetadata.DecodeMetadataStoreGVKResult(&gvk)); err != nil {
		return result{}, fmt.Errorf("%s: %w", file, err)
	}
	r := result{GVK: gvk.String()}
	if validation != nil {
		s := validation.Error()
		r.Validation = &s
	}
	r.Metadata, err = toV1beta1(&dm)
	return r, err
}

func toV1beta1(dm *metadata.DeviceMetadata) (*metadatav1beta1.DeviceMetadata, error) {
	var out metadatav1beta1.DeviceMetadata
	if err := install.NewScheme().Convert(dm, &out, nil); err != nil {
		return nil, err
	}
	out.SetGroupVersionKind(metadatav1beta1.SchemeGroupVersion.WithKind("DeviceMetadata"))
	return &out, nil
}

func print(r result) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
