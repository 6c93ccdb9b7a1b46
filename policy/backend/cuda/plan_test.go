package cuda_test

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/memplan"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend/cuda"
)

// qwen7B is Qwen2.5-7B's shape (its config.json).
var qwen7B = policy.Config{
	VocabSize: 152064, HiddenSize: 3584, IntermediateSize: 18944, NumHiddenLayers: 28,
	NumAttentionHeads: 28, NumKeyValueHeads: 4, MaxPositionEmbeddings: 32768,
	RopeTheta: 1e6, RMSNormEps: 1e-6,
}

// TestDevicePlanQwen7B checks the device plan of one LoRA GRPO step of
// Qwen2.5-7B against an 80 GB GPU: memplan's terms (the backend keeps
// every tensor on the device in float32) with the backend's reserve in
// place of the host's runtime term. The run is
// configs/artist-math-qwen2.5-7b.yaml's with LoRA rank 16 on the seven
// targets, one sequence per backward pass with recomputation, and the KV
// cache of the decoding batch at several sizes: its 192 sequences (32
// prompts x 6) do not fit, 16 or 4 at a time do (artist plan prints the
// same plan: docs/gpu.md). On a GPU it also logs the plan of 16 against
// the memory free there.
func TestDevicePlanQwen7B(t *testing.T) {
	const gpu = int64(80e9)
	T := min(qwen7B.MaxPositionEmbeddings, 256+8000+8*(512+16)) // prompt, response, tool results
	lora := policy.LoRAConfig{Rank: 16, Alpha: 32, Targets: []string{"q", "k", "v", "o", "gate", "up", "down"}}
	plan := func(seqs int) memplan.Plan {
		run := memplan.Run{Train: true, GraphSeqs: 1, GraphLen: T, DecodeSeqs: seqs, DecodeLen: T, LoRA: lora, Recompute: true}
		return memplan.Estimate(qwen7B, run).OnDevice(cuda.ReservedBytes)
	}
	for _, c := range []struct {
		seqs int
		fits bool
	}{{192, false}, {16, true}, {4, true}} {
		p := plan(c.seqs)
		host := memplan.Estimate(qwen7B, memplan.Run{Train: true, GraphSeqs: 1, GraphLen: T, DecodeSeqs: c.seqs, DecodeLen: T, LoRA: lora, Recompute: true})
		if d := p.Total() - host.Total(); d != cuda.ReservedBytes-memplan.RuntimeBytes {
			t.Errorf("%d sequences: the device plan differs from the host's by %d bytes, want the reserve less the runtime term", c.seqs, d)
		}
		if w := p.Terms[0]; w.Bytes != 4*memplan.Params(qwen7B) {
			t.Errorf("first term %+v, want the float32 weights", w)
		}
		err := p.CheckDevice(gpu, "an 80 GB GPU")
		if (err == nil) != c.fits {
			t.Errorf("decoding %d sequences of %d tokens: fits %v, want %v (estimated peak %s)", c.seqs, T, err == nil, c.fits, memplan.MiB(p.Total()))
		}
		if err != nil && !strings.Contains(err.Error(), "its largest term is KV cache (192 x 12480 tokens)") {
			t.Errorf("the refusal does not name the KV cache: %v", err)
		}
		var sb strings.Builder
		p.Write(&sb, gpu, memplan.DeviceSource("an 80 GB GPU"))
		t.Logf("decoding %d sequences of %d tokens, fits: %v\n%s", c.seqs, T, err == nil, sb.String())
	}
	kv := func(p memplan.Plan) int64 {
		for _, term := range p.Terms {
			if strings.HasPrefix(term.Name, "KV cache") {
				return term.Bytes
			}
		}
		return 0
	}
	if kv(plan(192)) != 12*kv(plan(16)) || kv(plan(16)) == 0 {
		t.Errorf("KV cache of 192 sequences %d bytes, want 12 times that of 16 (%d)", kv(plan(192)), kv(plan(16)))
	}
	logOnGPU(t, plan(16))
}

// logOnGPU logs p against the memory free on this machine's GPU, where
// the cuda backend opens.
func logOnGPU(t *testing.T, p memplan.Plan) {
	b, err := cuda.Open()
	if err != nil {
		return
	}
	free, total, name, err := b.DeviceMemory()
	if err != nil {
		t.Errorf("DeviceMemory on the GPU: %v", err)
		return
	}
	var sb strings.Builder
	p.Write(&sb, free, memplan.DeviceSource(name))
	t.Logf("on this GPU (%d bytes in total), fits: %v\n%s", total, p.CheckDevice(free, name) == nil, sb.String())
}
