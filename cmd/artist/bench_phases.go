package main

// artist bench -grpo: one GRPO-shaped step of a model, phase by phase,
// to size a real run's time and memory.

import (
	"math"
	"math/rand"
	"runtime"
	"time"

	"github.com/artist-rl/artist/internal/sysmem"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/trainer"
)

// benchPhase is the time and the process's peak resident memory at the
// end of one phase of a GRPO step.
type benchPhase struct {
	Name       string  `json:"name"`
	Seconds    float64 `json:"seconds"`
	PeakRSSMiB float64 `json:"peak_rss_mib"`
}

// benchGRPO runs one GRPO-shaped step on m: "rollout" samples
// -decode-batch sequences of -new-tokens tokens after a -prompt-token
// prompt with the key/value cache (temperature 1 from the seeded source);
// "ref_logprobs" scores them again without gradients, as the KL reference
// and a later mini-batch's old policy do (the base, adapters off, with
// -lora-rank, or a frozen copy of the base in -reference-dtype, built
// before the first entry and held to the end, as a run holds it);
// "update" is Backward of a loss on the sampled tokens (in passes of
// -micro-batch sequences) and an AdamW step of the trained parameters. The first entry, "model", is the memory after
// building the model (and the reference copy), timed from start.
func benchGRPO(m *policy.Model, s benchSettings, rng *rand.Rand, start time.Time) ([]benchPhase, error) {
	ref := m.Base() // with adapters the reference is the base
	switch s.referenceDType {
	case "f32":
		ref = ref.Clone()
	case "bf16":
		ref = ref.Clone16()
	}
	phases := []benchPhase{{Name: "model", Seconds: benchRound(time.Since(start).Seconds(), 3), PeakRSSMiB: benchRound(sysmem.PeakRSSMiB(), 1)}}
	mark := func(name string, t0 time.Time) {
		phases = append(phases, benchPhase{Name: name, Seconds: benchRound(time.Since(t0).Seconds(), 3), PeakRSSMiB: benchRound(sysmem.PeakRSSMiB(), 1)})
	}
	B, P, N := s.decodeBatch, s.prompt, s.newTokens
	seqs := benchTokens(rng, B, P, m.Config.VocabSize)

	t0 := time.Now()
	sess := m.NewSession(B, P+N)
	defer sess.Close()
	logits, err := sess.Step(seqs)
	if err != nil {
		return nil, err
	}
	next := make([][]int, B)
	for range N {
		for i, row := range logits {
			tok := benchSample(row, rng.Float64())
			seqs[i] = append(seqs[i], tok)
			next[i] = []int{tok}
		}
		if logits, err = sess.Step(next); err != nil {
			return nil, err
		}
	}
	sess = nil
	mark("rollout", t0)

	t0 = time.Now()
	if _, err := ref.LogProbs(seqs); err != nil {
		return nil, err
	}
	mark("ref_logprobs", t0)

	t0 = time.Now()
	coef := make([][]float32, B)
	for i := range coef {
		coef[i] = make([]float32, P+N)
		for t := P; t < P+N; t++ {
			coef[i][t] = -1 / float32(B*N)
		}
	}
	opt := trainer.NewModelAdamW(m, m.TrainParams(), trainer.DefaultAdamWConfig())
	step := B // sequences per backward pass
	if s.microBatch > 0 {
		step = s.microBatch
	}
	for lo := 0; lo < B; lo += step {
		if _, err := m.Backward(seqs[lo:min(lo+step, B)], coef[lo:min(lo+step, B)]); err != nil {
			return nil, err
		}
	}
	if _, err := opt.Step(1e-6); err != nil {
		return nil, err
	}
	mark("update", t0)
	runtime.KeepAlive(ref) // a run holds its reference copy through the update
	return phases, nil
}

// benchSample draws a token from softmax(x) with the uniform u.
func benchSample(x []float32, u float64) int {
	mx := x[benchArgmax(x)]
	p := make([]float64, len(x)) // unnormalised probabilities
	sum := 0.0
	for i, v := range x {
		p[i] = math.Exp(float64(v - mx))
		sum += p[i]
	}
	acc, target := 0.0, u*sum
	for i, q := range p {
		acc += q
		if acc >= target {
			return i
		}
	}
	return len(x) - 1
}
