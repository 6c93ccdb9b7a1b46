package main

// Memory plans of backends that compute on a device (a GPU).

import (
	"fmt"
	"io"

	"github.com/artist-rl/artist/internal/memplan"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cuda"
)

// planDevice is the device the commands' memory plans are checked
// against: selectedDevice, or a stand-in in tests.
var planDevice = selectedDevice

// selectedDevice is the device of the backend this process computes
// with (policy.DefaultBackend) when that backend keeps its tensors on a
// device (backend.DeviceMemory), else nil: the plan is the host's. A
// backend that does not open leaves the plan on the host; loading the
// model then reports the backend's error.
func selectedDevice() backend.DeviceMemory {
	sel, err := policy.DefaultBackend()
	if err != nil {
		return nil
	}
	dev, _ := sel.Backend.(backend.DeviceMemory)
	return dev
}

// checkPlanOn prints plan and refuses it when it does not fit: on the
// host (dev nil) against the host's available memory, unchanged; on a
// device as memplan's OnDevice plan, the backend's reserve in place of
// the host's runtime term, against the memory free on the device.
func checkPlanOn(w io.Writer, plan memplan.Plan, dev backend.DeviceMemory) error {
	if dev == nil {
		return checkHostPlan(w, plan)
	}
	free, _, name, err := dev.DeviceMemory()
	if err != nil {
		fmt.Fprintf(w, "memory plan: %v; not checked\n", err)
		free = 0
	}
	dp := plan.OnDevice(dev.Reserved())
	dp.Write(w, free, memplan.DeviceSource(name))
	return dp.CheckDevice(free, name)
}

// sizedDevice is a device of a given size, all of it free, with the cuda
// backend's reserve: the plan of a GPU run made on a machine without
// that GPU (artist plan -device-memory).
type sizedDevice struct {
	bytes int64
	size  string // as given, e.g. "80GB"
}

func (d sizedDevice) DeviceMemory() (free, total int64, name string, err error) {
	return d.bytes, d.bytes, "a device of " + d.size, nil
}

func (d sizedDevice) Reserved() int64 { return cuda.ReservedBytes }

// deviceOfSize is the sizedDevice of -device-memory's value, nil for "".
func deviceOfSize(size string) (backend.DeviceMemory, error) {
	if size == "" {
		return nil, nil
	}
	n, err := backend.ParseBytes(size)
	if err != nil {
		return nil, err
	}
	return sizedDevice{bytes: n, size: size}, nil
}
