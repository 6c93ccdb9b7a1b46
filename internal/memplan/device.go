package memplan

import (
	"fmt"
	"strings"
)

// hostRuntimeTerm is the name Estimate gives the host's fixed term
// (RuntimeBytes).
const hostRuntimeTerm = "runtime and data"

// ReservedTerm names a device plan's fixed term: what a device backend
// holds besides its tensors.
const ReservedTerm = "device context and workspaces"

// OnDevice is p for a backend that keeps every tensor on a device, in
// float32 as the host does: the same terms, with the host's runtime and
// data term (the Go runtime, binary and task data, which stay on the
// host) replaced by reserved, the device memory the backend holds
// besides its tensors (backend.DeviceMemory's Reserved). p is not
// changed.
func (p Plan) OnDevice(reserved int64) Plan {
	d := Plan{Terms: make([]Term, 0, len(p.Terms))}
	for _, t := range p.Terms {
		if t.Name == hostRuntimeTerm {
			t = Term{Name: ReservedTerm, Bytes: reserved}
		}
		if t.Bytes > 0 {
			d.Terms = append(d.Terms, t)
		}
	}
	return d
}

// DeviceSource is the source Write and Check name for the memory free
// on a device, e.g. "free on NVIDIA H100 80GB HBM3 (device 0)".
func DeviceSource(device string) string { return "free on " + device }

// CheckDevice is nil when p, a device plan (OnDevice), fits in the free
// bytes of the named device (or free is 0: unknown), else an error that
// gives the estimate, the free memory, the plan's largest term and the
// ways out, the one that shrinks that term first: the config keys (and
// artist bench's flags) that shrink the KV cache (sequences decoded at
// once, their length), the training graph, the trained state (LoRA), or
// a larger device.
func (p Plan) CheckDevice(free int64, device string) error {
	if free <= 0 || p.Total() <= free {
		return nil
	}
	big := p.largest()
	return fmt.Errorf("memory plan: the estimated peak, %s, exceeds the memory free on %s, %s; its largest term is %s, %s: "+
		"%s, or use a device with more memory; -force runs anyway",
		MiB(p.Total()), device, MiB(free), strings.TrimSpace(big.Name), MiB(big.Bytes), strings.Join(deviceFixes(big.Name), ", "))
}

// Ways to shrink a device plan, by the terms they shrink.
const (
	fixDecode = "decode fewer sequences at once (grpo.batch_size x rollout.group_size; artist bench -decode-batch) or shorter ones " +
		"(rollout.max_response_tokens, rollout.max_tool_calls x rollout.max_result_tokens)"
	fixGraph = "shrink the backward pass (model.recompute: true, grpo.micro_batch and warmstart.micro_batch: 1; -recompute, -micro-batch)"
	fixState = "train LoRA adapters instead of the full weights (model.lora.rank; -lora-rank)"
)

// deviceFixes lists the ways out, the one for the term named largest
// first.
func deviceFixes(largest string) []string {
	switch {
	case strings.HasPrefix(largest, "activations"):
		return []string{fixGraph, fixDecode, fixState}
	case strings.HasPrefix(largest, "KV cache"):
		return []string{fixDecode, fixGraph, fixState}
	}
	return []string{fixState, fixDecode, fixGraph}
}

// largest is the plan's largest term.
func (p Plan) largest() Term {
	var big Term
	for _, t := range p.Terms {
		if t.Bytes > big.Bytes {
			big = t
		}
	}
	return big
}
