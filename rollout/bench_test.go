package rollout

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// BenchmarkRun measures the engine alone: the fake policy returns fixed
// logits at no cost, so the time is sampling, tag detection and
// bookkeeping. 8 tasks × G=8 rows, 96 tokens each.
func BenchmarkRun(b *testing.B) {
	tok := newCharTok(true)
	for _, V := range []int{256, 4096, 65536} {
		for _, topP := range []float64{1, 0.95} {
			benchRun(b, tok, V, topP)
		}
	}
}

func benchRun(b *testing.B, tok *charTok, V int, topP float64) {
	b.Run(fmt.Sprintf("V=%d/top_p=%g", V, topP), func(b *testing.B) {
		rng := rand.New(rand.NewSource(1))
		logits := make([]float32, V)
		for v := range logits {
			logits[v] = float32(rng.NormFloat64() * 3)
		}
		logits[eosID] = -1e9 // every row spends its whole budget
		cfg := DefaultConfig()
		cfg.MaxToolCalls, cfg.TopP = 0, topP
		e := &Engine{Policy: fixedPolicy{logits}, Tokenizer: tok, Format: format.DefaultFormat(), Config: cfg}
		tasks := make([]envs.Task, 8)
		tokens := 0
		for b.Loop() {
			trajs, err := e.Run(context.Background(), tasks, rng)
			if err != nil {
				b.Fatal(err)
			}
			for _, tr := range trajs {
				tokens += tr.ModelTokens()
			}
		}
		b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	})
}
