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

// TestDevicePlanQwen7B prints the device memory of one LoRA GRPO step of
// Qwen2.5-7B against an 80 GB GPU, with memplan's figures (the backend
// keeps every tensor on the device in float32) plus what the backend
// reserves. The run is configs/artist-math-qwen2.5-7b.yaml's with LoRA
// rank 16 on the seven targets, one sequence per backward pass with
// recomputation, and the KV cache of the decoding batch at several
// sizes: the batch must be decoded in slices to fit.
func TestDevicePlanQwen7B(t *testing.T) {
	const gpu = int64(80e9)
	T := min(qwen7B.MaxPositionEmbeddings, 256+8000+8*(512+16)) // prompt, response, tool results
	lora := policy.LoRAConfig{Rank: 16, Alpha: 32, Targets: []string{"q", "k", "v", "o", "gate", "up", "down"}}
	for _, seqs := range []int{192, 16, 4} { // 32 prompts × 6, then slices of it
		run := memplan.Run{Train: true, GraphSeqs: 1, GraphLen: T, DecodeSeqs: seqs, DecodeLen: T, LoRA: lora, Recompute: true}
		p := memplan.Estimate(qwen7B, run)
		for i, term := range p.Terms {
			if term.Name == "runtime and data" { // host RSS; the device holds the backend's own
				p.Terms[i] = memplan.Term{Name: "CUDA context, cuBLASLt, scratch", Bytes: cuda.ReservedBytes}
			}
		}
		var sb strings.Builder
		p.Write(&sb, gpu, "one 80 GB GPU")
		t.Logf("decoding %d sequences of %d tokens, fits: %v\n%s", seqs, T, p.Check(gpu, "80 GB") == nil, sb.String())
		if w := p.Terms[0]; w.Bytes != 4*memplan.Params(qwen7B) {
			t.Errorf("first term %+v, want the float32 weights", w)
		}
	}
}
