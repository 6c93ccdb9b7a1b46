package trainer

import (
	"fmt"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
)

// applyComputeDType sets model.compute_dtype on the backend that the
// run's models compute with (policy.DefaultBackend), before any model is
// built. f32 is every backend's; bf16 needs a backend that computes its
// products in bfloat16 (cuda), and is refused on the others with the
// fix. The setting is the backend's, for the whole process: a run sets
// it at start, f32 included, so a later run of the same process starts
// from its own value.
func applyComputeDType(dtype string) error {
	sel, err := policy.DefaultBackend()
	if err != nil {
		if dtype == backend.DTypeF32 {
			return nil // the model's setup reports the backend's error
		}
		return fmt.Errorf("trainer: model.compute_dtype %s: %w", dtype, err)
	}
	return setComputeDType(sel.Backend, dtype)
}

// setComputeDType sets dtype on b, or says why b cannot compute in it and
// what to change.
func setComputeDType(b backend.Backend, dtype string) error {
	if err := backend.SetComputeDType(b, dtype); err != nil {
		return fmt.Errorf("config: model.compute_dtype %s: %v: run on a GPU with %s=cuda, or set model.compute_dtype: f32", dtype, err, backend.EnvVar)
	}
	return nil
}
