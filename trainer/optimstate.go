package trainer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/artist-rl/artist/policy"
)

// The optimizer state of a checkpoint is a safetensors file: for each
// parameter NAME the tensors "m.NAME" and "v.NAME" (1-D, float32), and the
// step count as the one-element tensor "step" (exact up to 2^24 steps).

func saveOptimizer(path string, s AdamWState) error {
	names := make([]string, 0, len(s.M))
	for n := range s.M {
		names = append(names, n)
	}
	sort.Strings(names)
	ts := []policy.NamedTensor{{Name: "step", Shape: []int{1}, Data: []float32{float32(s.Step)}}}
	for _, n := range names {
		ts = append(ts,
			policy.NamedTensor{Name: "m." + n, Shape: []int{len(s.M[n])}, Data: s.M[n]},
			policy.NamedTensor{Name: "v." + n, Shape: []int{len(s.V[n])}, Data: s.V[n]})
	}
	if err := policy.WriteSafetensors(path, ts); err != nil {
		return fmt.Errorf("trainer: optimizer state: %w", err)
	}
	return nil
}

func loadOptimizer(path string) (AdamWState, error) {
	ts, err := policy.ReadSafetensors(path)
	if err != nil {
		return AdamWState{}, fmt.Errorf("trainer: optimizer state: %w", err)
	}
	st, ok := ts["step"]
	if !ok || len(st.Data) != 1 {
		return AdamWState{}, fmt.Errorf("trainer: optimizer state: %s has no step", path)
	}
	s := AdamWState{Step: int(st.Data[0]), M: map[string][]float32{}, V: map[string][]float32{}}
	for name, t := range ts {
		switch {
		case strings.HasPrefix(name, "m."):
			s.M[name[2:]] = t.Data
		case strings.HasPrefix(name, "v."):
			s.V[name[2:]] = t.Data
		}
	}
	return s, nil
}
