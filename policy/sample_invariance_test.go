package policy

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// invarianceConfigs are the model shapes batch invariance is checked on:
// a tiny one (the library's small-matrix paths) and one whose weights
// pass the few-row kernel's threshold.
func invarianceConfigs() map[string]Config {
	tiny := Config{VocabSize: 97, HiddenSize: 64, IntermediateSize: 160, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2,
		MaxPositionEmbeddings: 256, RopeTheta: 10000, RMSNormEps: 1e-6}
	wide := Config{VocabSize: 1200, HiddenSize: 1024, IntermediateSize: 1536, NumHiddenLayers: 1, NumAttentionHeads: 8, NumKeyValueHeads: 2,
		MaxPositionEmbeddings: 256, RopeTheta: 10000, RMSNormEps: 1e-6}
	mid := Config{VocabSize: 600, HiddenSize: 256, IntermediateSize: 704, NumHiddenLayers: 1, NumAttentionHeads: 4, NumKeyValueHeads: 2,
		MaxPositionEmbeddings: 256, RopeTheta: 10000, RMSNormEps: 1e-6}
	return map[string]Config{"tiny": tiny, "mid": mid, "wide": wide}
}

func invarianceBackends(t *testing.T) map[string]backend.Backend {
	out := map[string]backend.Backend{"go": cpu.NewGo()}
	for _, b := range otherBackends(t) {
		out[b.Info().Name] = b
	}
	return out
}

// TestSessionBatchInvariance decodes one sequence alone and as one row
// among others (prefills and decodes of other rows in the same steps) and
// requires bit-identical logits.
func TestSessionBatchInvariance(t *testing.T) {
	for cname, cfg := range invarianceConfigs() {
		for bname, be := range invarianceBackends(t) {
			for _, others := range []int{1, 3, 7, 31} {
				t.Run(fmt.Sprintf("%s/%s/%d others", cname, bname, others), func(t *testing.T) {
					rng := rand.New(rand.NewSource(5))
					m, err := New(cfg, rng)
					if err != nil {
						t.Fatal(err)
					}
					m.UseBackend(be)
					const prompt, steps = 9, 6
					seq := randomSeqs(rng, cfg.VocabSize, prompt+steps)[0]
					alone := m.NewSession(1, 128)
					var want [][]float32
					for s := 0; s <= steps; s++ {
						f := seq[:prompt]
						if s > 0 {
							f = seq[prompt+s-1 : prompt+s]
						}
						out, err := alone.Step([][]int{f})
						if err != nil {
							t.Fatal(err)
						}
						want = append(want, out[0])
					}
					batch := m.NewSession(others+1, 128)
					row := others / 2
					for s := 0; s <= steps; s++ {
						feed := make([][]int, others+1)
						for i := range feed {
							n := 1
							if s == 0 || rng.Intn(4) == 0 {
								n = 1 + rng.Intn(12)
							}
							feed[i] = randomSeqs(rng, cfg.VocabSize, n)[0]
						}
						feed[row] = seq[:prompt]
						if s > 0 {
							feed[row] = seq[prompt+s-1 : prompt+s]
						}
						out, err := batch.Step(feed)
						if err != nil {
							t.Fatal(err)
						}
						diff := 0
						for j := range want[s] {
							if out[row][j] != want[s][j] {
								diff++
							}
						}
						if diff > 0 {
							t.Errorf("step %d: %d of %d logits differ from the sequence decoded alone", s, diff, len(want[s]))
						}
					}
				})
			}
		}
	}
}

// TestSessionAddReset: a sequence added to a running session, or started
// again in a reset one, gets the logits of a fresh session.
func TestSessionAddReset(t *testing.T) {
	m := testModel(t, false, 7)
	rng := rand.New(rand.NewSource(8))
	seqs := randomSeqs(rng, m.Config.VocabSize, 6, 5)
	fresh := m.NewSession(1, 32)
	want, err := fresh.Step([][]int{seqs[1]})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewSession(1, 32)
	if _, err := s.Step([][]int{seqs[0]}); err != nil {
		t.Fatal(err)
	}
	i := s.Add()
	if i != 1 || s.Size() != 2 || s.Len(1) != 0 {
		t.Fatalf("Add: index %d, size %d, length %d; want 1, 2, 0", i, s.Size(), s.Len(1))
	}
	got, err := s.Step([][]int{seqs[0][:1], seqs[1]})
	if err != nil {
		t.Fatal(err)
	}
	if !slicesEqual(got[1], want[0]) {
		t.Error("an added sequence's logits differ from a fresh session's")
	}
	s.Reset(0)
	if s.Len(0) != 0 {
		t.Fatalf("Reset: length %d, want 0", s.Len(0))
	}
	got, err = s.Step([][]int{seqs[1], nil})
	if err != nil {
		t.Fatal(err)
	}
	if !slicesEqual(got[0], want[0]) {
		t.Error("a reset sequence's logits differ from a fresh session's")
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
