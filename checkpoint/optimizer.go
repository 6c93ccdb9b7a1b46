package checkpoint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/artist-rl/artist/policy"
)

// OptimizerFile is the name of a checkpoint's optimizer state.
const OptimizerFile = "optimizer.safetensors"

// OptimizerState is everything AdamW carries between steps: the step
// count and the first and second moments by parameter name.
//
// On disk it is a safetensors file: for each parameter NAME the tensors
// "m.NAME" and "v.NAME" (1-D, float32), and the step count as the
// one-element tensor "step" (exact up to 2^24 steps).
type OptimizerState struct {
	Step int
	M, V map[string][]float32
}

// SaveOptimizer writes s to path as a safetensors file.
func SaveOptimizer(path string, s OptimizerState) error {
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
		return fmt.Errorf("checkpoint: optimizer state: %w", err)
	}
	return nil
}

// LoadOptimizer reads the optimizer state SaveOptimizer wrote to path.
func LoadOptimizer(path string) (OptimizerState, error) {
	ts, err := policy.ReadSafetensors(path)
	if err != nil {
		return OptimizerState{}, fmt.Errorf("checkpoint: optimizer state: %w", err)
	}
	st, ok := ts["step"]
	if !ok || len(st.Data) != 1 {
		return OptimizerState{}, fmt.Errorf("checkpoint: optimizer state: %s has no step", path)
	}
	s := OptimizerState{Step: int(st.Data[0]), M: map[string][]float32{}, V: map[string][]float32{}}
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
