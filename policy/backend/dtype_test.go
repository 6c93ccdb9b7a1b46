package backend

import (
	"strings"
	"testing"
)

// dtyped is a backend with the ComputeDTyper capability that takes f32
// and bf16.
type dtyped struct {
	fake
	dtype *string
}

func (d dtyped) SetComputeDType(dtype string) error { *d.dtype = dtype; return nil }
func (d dtyped) ComputeDType() string               { return *d.dtype }

func TestSetComputeDType(t *testing.T) {
	cases := []struct {
		name   string
		b      func() Backend
		dtype  string
		want   string   // ComputeDType after
		errHas []string // empty: no error
	}{
		{"f32 on a float32-only backend", func() Backend { return fake{} }, "f32", "f32", nil},
		{"bf16 on a float32-only backend", func() Backend { return fake{} }, "bf16", "f32", []string{"slow", "f32 only", "bf16"}},
		{"unknown dtype", func() Backend { return fake{} }, "fp16", "f32", []string{`"fp16"`, "f32 or bf16"}},
		{"bf16 on a capable backend", func() Backend { s := "f32"; return dtyped{dtype: &s} }, "bf16", "bf16", nil},
		{"f32 on a capable backend", func() Backend { s := "bf16"; return dtyped{dtype: &s} }, "f32", "f32", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.b()
			err := SetComputeDType(b, c.dtype)
			switch {
			case len(c.errHas) == 0 && err != nil:
				t.Fatalf("error %v", err)
			case len(c.errHas) > 0 && err == nil:
				t.Fatal("no error")
			}
			for _, s := range c.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
			if got := ComputeDType(b); got != c.want {
				t.Errorf("ComputeDType = %q, want %q", got, c.want)
			}
		})
	}
}
