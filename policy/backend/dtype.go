package backend

import (
	"fmt"
	"slices"
	"strings"
)

// Compute dtypes: the types a backend's matrix products (MatMul) read
// their operands in. Tensors stay float32 either way; only the products
// change.
const (
	// DTypeF32 multiplies float32 operands and sums in float32: every
	// backend's products, and the default.
	DTypeF32 = "f32"
	// DTypeBF16 rounds both operands of every product to bfloat16
	// (nearest, ties to even) and multiplies and sums in float32: the
	// products that GPUs' tensor cores run fastest.
	DTypeBF16 = "bf16"
)

// ComputeDTypes are the compute dtypes, the default first.
var ComputeDTypes = []string{DTypeF32, DTypeBF16}

// ComputeDTyper is the optional capability of a backend whose products
// can read their operands in another type than float32.
// SetComputeDType sets the dtype of every later MatMul (one of
// ComputeDTypes) and returns an error for a dtype the backend does not
// compute in; ComputeDType returns the current one. The setting belongs
// to the backend, so every model on it changes with it: a process sets
// it once, at start.
type ComputeDTyper interface {
	SetComputeDType(dtype string) error
	ComputeDType() string
}

// SetComputeDType sets b's compute dtype. f32 is every backend's, so it
// is set on a ComputeDTyper and nothing else is needed on other backends.
// Another dtype needs a ComputeDTyper that accepts it; the error names
// the backend and says that its products are float32 only.
func SetComputeDType(b Backend, dtype string) error {
	if !slices.Contains(ComputeDTypes, dtype) {
		return fmt.Errorf("backend: compute dtype %q is unknown: use %s", dtype, strings.Join(ComputeDTypes, " or "))
	}
	if c, ok := b.(ComputeDTyper); ok {
		return c.SetComputeDType(dtype)
	}
	if dtype == DTypeF32 {
		return nil
	}
	return fmt.Errorf("backend: %s computes its products in f32 only, not %s", b.Info().Name, dtype)
}

// ComputeDType returns b's compute dtype: ComputeDTyper's, else f32.
func ComputeDType(b Backend) string {
	if c, ok := b.(ComputeDTyper); ok {
		return c.ComputeDType()
	}
	return DTypeF32
}
