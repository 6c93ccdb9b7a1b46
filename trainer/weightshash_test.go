package trainer

import (
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy"
)

// TestWeightsHashCoversFrozen: the ranks' weight check sees a change in
// any weight, float32 or frozen in bfloat16 (model.lora.base_dtype).
func TestWeightsHashCoversFrozen(t *testing.T) {
	m, err := policy.New(policy.Config{VocabSize: 30, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 1,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 64, RopeTheta: 10000, RMSNormEps: 1e-6},
		rand.New(rand.NewSource(7)))
	if err != nil {
		t.Fatal(err)
	}
	m.Freeze16()
	var frozen, full *policy.Param
	for _, p := range m.Params {
		if p.Frozen16() && frozen == nil {
			frozen = p
		}
		if !p.Frozen16() && full == nil {
			full = p
		}
	}
	if frozen == nil || full == nil {
		t.Fatal("the test model has no frozen or no float32 weight")
	}
	for _, tc := range []struct {
		name string
		flip func()
	}{
		{"float32 " + full.Name, func() { full.Data[0] += 1 }},
		{"bfloat16 " + frozen.Name, func() { frozen.BF16()[0] ^= 1 }},
	} {
		before := weightsHash(m)
		tc.flip()
		if weightsHash(m) == before {
			t.Errorf("%s: the hash did not change", tc.name)
		}
	}
}
