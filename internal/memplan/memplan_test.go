package memplan

import (
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
)

func tiny() policy.Config {
	return policy.Config{VocabSize: 399, HiddenSize: 64, IntermediateSize: 176, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, MaxPositionEmbeddings: 256, RopeTheta: 10000, RMSNormEps: 1e-6, TieWordEmbeddings: true}
}

// TestParamsMatchTheModel counts the weights policy.New builds, tied and
// untied, and the bytes they take in float32 and frozen in bfloat16.
func TestParamsMatchTheModel(t *testing.T) {
	for _, tied := range []bool{true, false} {
		c := tiny()
		c.TieWordEmbeddings = tied
		m, err := policy.New(c, rand.New(rand.NewSource(1)))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := Params(c), int64(m.NumParams()); got != want {
			t.Errorf("tied %v: Params = %d, the model has %d", tied, got, want)
		}
		if got, want := ReferenceBytes(c, false), m.WeightBytes(); got != want {
			t.Errorf("tied %v: ReferenceBytes(f32) = %d, the model takes %d", tied, got, want)
		}
		m.Freeze16()
		scratch := int64(4 * c.HiddenSize * c.IntermediateSize)
		if got, want := ReferenceBytes(c, true), m.WeightBytes()+scratch; got != want {
			t.Errorf("tied %v: ReferenceBytes(bf16) = %d, the frozen model takes %d and its scratch %d", tied, got, m.WeightBytes(), scratch)
		}
	}
}

// TestQwen7BParams checks the count against Qwen2.5-7B's published 7.62B.
func TestQwen7BParams(t *testing.T) {
	c, err := policy.ReadConfig("testdata/qwen2.5-7b")
	if err != nil {
		t.Fatal(err)
	}
	if n := Params(c); n < 7_600_000_000 || n > 7_640_000_000 {
		t.Errorf("Params = %d, want about 7.62e9", n)
	}
}

func TestTerms(t *testing.T) {
	c := tiny()
	w := 4 * Params(c)
	for _, tc := range []struct {
		name string
		run  Run
		want map[string]int64 // term name prefix -> bytes
	}{
		{"inference", Run{}, map[string]int64{"weights": w, "runtime": RuntimeBytes}},
		{"training", Run{Train: true}, map[string]int64{"weights": w, "gradients": w, "AdamW": 2 * w}},
		{"reference", Run{Train: true, Reference: true}, map[string]int64{"reference": w}},
		// 2 layers of 2*64*64 + 2*64*32 + 3*64*176 linear weights at 2
		// bytes, the rest at 4, and one 64 x 176 scratch.
		{"bf16 reference", Run{Train: true, Reference: true, Reference16: true}, map[string]int64{"reference": w - 2*2*(8192+4096+33792) + 4*64*176}},
		// LoRA over a bf16 base: the bf16 reference's bytes and a second
		// 64 x 176 scratch; the adapters alone train.
		{"lora bf16 base", Run{Train: true, Reference: true, LoRA: policy.LoRAConfig{Rank: 2, Alpha: 4, Targets: []string{"q"}, BaseDType: "bf16"}},
			map[string]int64{"weights (bf16": w - 2*2*(8192+4096+33792) + 2*4*64*176, "LoRA adapters": 4 * 2 * 2 * 128}},
		{"lora f32 base", Run{Train: true, LoRA: policy.LoRAConfig{Rank: 2, Alpha: 4, Targets: []string{"q"}, BaseDType: "f32"}},
			map[string]int64{"weights (f32, frozen)": w}},
		{"kv cache", Run{DecodeSeqs: 8, DecodeLen: 100}, map[string]int64{"KV cache": 8 * 100 * 2 * 2 * 2 * 16 * 4}},
		// 8 x 64 tokens keep their probabilities: per token 2 layers of
		// 10.75*64 + 5.875*176 + 0.75*4*64, and 2.25*399 + 13*64 outside.
		{"activations", Run{GraphSeqs: 8, GraphLen: 64}, map[string]int64{"activations": int64(4 * 512 * (2*(688+1034+192) + 897.75 + 832))}},
		// 64 x 256 tokens are over the bound: no probabilities kept.
		{"long activations", Run{GraphSeqs: 64, GraphLen: 256}, map[string]int64{"activations": int64(4 * 16384 * (2*(688+1034) + 897.75 + 832))}},
		// Recomputing blocks keep one hidden state per layer and token and
		// one block's values: 2*64 + 8*64 + 6*64 + 6*32 + 7*176 + 4*64 a
		// token, and one weight's gradient (176*64).
		{"recompute", Run{GraphSeqs: 8, GraphLen: 64, Recompute: true}, map[string]int64{"activations": int64(4 * (512*(2704+897.75+832) + 11264))}},
		// 256 x 256 tokens hold 26M logits: the fused head's two chunks
		// of 8M values replace 2.25*399 a token.
		{"fused head", Run{GraphSeqs: 256, GraphLen: 256}, map[string]int64{"activations": int64(4 * (65536*(2*(688+1034)+832) + 2*(8<<20)))}},
	} {
		p := Estimate(c, tc.run)
		var sum int64
		for _, term := range p.Terms {
			sum += term.Bytes
		}
		if sum != p.Total() {
			t.Errorf("%s: Total %d, terms sum to %d", tc.name, p.Total(), sum)
		}
		for prefix, want := range tc.want {
			found := false
			for _, term := range p.Terms {
				if strings.HasPrefix(term.Name, prefix) {
					found = true
					if term.Bytes != want {
						t.Errorf("%s: %s = %d, want %d", tc.name, term.Name, term.Bytes, want)
					}
				}
			}
			if !found {
				t.Errorf("%s: no term %q in %+v", tc.name, prefix, p.Terms)
			}
		}
		if !tc.run.Train {
			for _, term := range p.Terms {
				if strings.HasPrefix(term.Name, "gradients") || strings.HasPrefix(term.Name, "AdamW") {
					t.Errorf("%s: inference plan has %s", tc.name, term.Name)
				}
			}
		}
	}
}

func TestCheck(t *testing.T) {
	p := Plan{Terms: []Term{{"weights", 3 << 30}}}
	if err := p.Check(4<<30, "test"); err != nil {
		t.Errorf("a plan that fits: %v", err)
	}
	if err := p.Check(0, ""); err != nil {
		t.Errorf("unknown availability: %v", err)
	}
	err := p.Check(2<<30, "cgroup limit")
	if err == nil {
		t.Fatal("a plan over the limit passed")
	}
	for _, want := range []string{"3072 MiB", "2048 MiB", "cgroup limit", "micro_batch", "more ranks", "larger machine", "-force"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func ExamplePlan_Write() {
	p := Estimate(tiny(), Run{Train: true, GraphSeqs: 64, GraphLen: 256, DecodeSeqs: 64, DecodeLen: 256})
	p.Write(os.Stdout, 0, "")
	// Output:
	// memory plan:
	//   weights (f32)                      0.45 MiB
	//   gradients                          0.45 MiB
	//   AdamW moments                      0.90 MiB
	//   activations (64 x 256 tokens)       323 MiB
	//   KV cache (64 x 256 tokens)         8.00 MiB
	//   runtime and data                    200 MiB
	//   estimated peak                      533 MiB
}

// TestLoRAPlan: AdapterParams counts the adapters policy attaches, and a
// LoRA plan holds the frozen weights once, gradients and moments of the
// adapters only, and no reference copy.
func TestLoRAPlan(t *testing.T) {
	c := tiny()
	for _, targets := range [][]string{nil, {"q_proj", "v"}, {"down", "gate", "k"}} {
		lc := policy.DefaultLoRAConfig()
		lc.Rank = 8
		if targets != nil {
			lc.Targets = targets
		}
		m, err := policy.New(c, rand.New(rand.NewSource(1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.AttachLoRA(lc, rand.New(rand.NewSource(2))); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range m.LoRA().Params() {
			n += len(p.Data)
		}
		if got := AdapterParams(c, lc); got != int64(n) {
			t.Errorf("targets %v: AdapterParams = %d, the model has %d", targets, got, n)
		}
		a := 4 * int64(n)
		p := Estimate(c, Run{Train: true, Reference: true, LoRA: lc})
		want := map[string]int64{"weights (f32, frozen)": 4 * Params(c), "LoRA adapters (rank 8)": a,
			"adapter gradients": a, "adapter AdamW moments": 2 * a, "runtime and data": RuntimeBytes}
		if len(p.Terms) != len(want) {
			t.Errorf("targets %v: terms %+v, want %v", targets, p.Terms, want)
		}
		for _, term := range p.Terms {
			if want[term.Name] != term.Bytes {
				t.Errorf("targets %v: %s = %d, want %d", targets, term.Name, term.Bytes, want[term.Name])
			}
		}
	}
	if AdapterParams(c, policy.DefaultLoRAConfig()) != 0 {
		t.Error("rank 0 has adapters")
	}
}
