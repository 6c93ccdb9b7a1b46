package rollout

import (
	"cmp"
	"math"
	"math/rand"
	"slices"
	"testing"
)

func logitsOf(probs ...float64) []float32 {
	out := make([]float32, len(probs))
	for i, p := range probs {
		out[i] = float32(math.Log(p))
	}
	return out
}

func TestSamplerDistribution(t *testing.T) {
	skew := logitsOf(0.5, 0.3, 0.15, 0.05)
	flat := []float32{0, 0, 0, 0}
	cases := []struct {
		name   string
		logits []float32
		s      sampler
		want   []float64
	}{
		{"temperature 1", skew, sampler{1, 1}, []float64{0.5, 0.3, 0.15, 0.05}},
		{"temperature 0.5 sharpens", skew, sampler{0.5, 1}, []float64{0.25 / 0.365, 0.09 / 0.365, 0.0225 / 0.365, 0.0025 / 0.365}},
		{"top-p 0.7 keeps two", skew, sampler{1, 0.7}, []float64{0.5 / 0.8, 0.3 / 0.8, 0, 0}},
		{"top-p 0.8 keeps two", skew, sampler{1, 0.8}, []float64{0.5 / 0.8, 0.3 / 0.8, 0, 0}},
		{"top-p 0.81 keeps three", skew, sampler{1, 0.81}, []float64{0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0}},
		{"top-p 0.4 keeps the mode", skew, sampler{1, 0.4}, []float64{1, 0, 0, 0}},
		{"top-p after temperature", skew, sampler{0.5, 0.9}, []float64{0.25 / 0.34, 0.09 / 0.34, 0, 0}},
		{"top-p ties keep lower ids", flat, sampler{1, 0.5}, []float64{0.5, 0.5, 0, 0}},
		{"greedy", skew, sampler{0, 1}, []float64{1, 0, 0, 0}},
	}
	const n = 20000
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			counts := make([]int, len(c.logits))
			for range n {
				tok, _, _, err := c.s.draw(c.logits, rng.Float64())
				if err != nil {
					t.Fatal(err)
				}
				counts[tok]++
			}
			for v, p := range c.want {
				frac := float64(counts[v]) / n
				if sd := math.Sqrt(p * (1 - p) / n); math.Abs(frac-p) > 5*sd || (p == 0 && counts[v] > 0) {
					t.Errorf("token %d drawn %.4f of the time, want %.4f", v, frac, p)
				}
			}
		})
	}
}

// TestSamplerLogProb: the recorded log-probs are those of the
// distribution each token was drawn from, against a float64 reference
// that sorts the vocabulary: lp is log softmax(logits / T)[tok] over the
// whole vocabulary, nuc the same renormalised over the nucleus of top_p
// (lp itself when top_p is 1), and greedy decoding gives log
// softmax(logits) for both.
func TestSamplerLogProb(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	logits := make([]float32, 1000)
	for i := range logits {
		logits[i] = float32(rng.NormFloat64() * 3)
	}
	logits[17] = float32(math.Inf(-1))
	for _, s := range []sampler{{1, 1}, {0.7, 1}, {0.7, 0.9}, {1, 0.9}, {0, 1}} {
		inNucleus := 0
		for range 200 {
			tok, lp, nuc, err := s.draw(logits, rng.Float64())
			if err != nil {
				t.Fatal(err)
			}
			temp, topP := s.temperature, s.topP
			if temp == 0 {
				temp, topP = 1, 1
			}
			full, nucleus, member := refSampleLogProbs(logits, temp, topP, tok)
			if !member || tok == 17 {
				t.Fatalf("%+v: token %d drawn outside the nucleus", s, tok)
			}
			if math.Abs(float64(lp)-full) > 1e-6 || math.Abs(float64(nuc)-nucleus) > 1e-6 {
				t.Fatalf("%+v: token %d log-probs %g (nucleus %g), want %g (%g)", s, tok, lp, nuc, full, nucleus)
			}
			if topP < 1 && nuc > lp {
				inNucleus++
			}
		}
		if s.topP < 1 && inNucleus != 200 {
			t.Errorf("%+v: %d of 200 nucleus log-probs above the full ones, want all", s, inNucleus)
		}
	}
}

// refSampleLogProbs is the float64 reference of a token's log-probs at
// temperature temp: over the whole vocabulary, and over the nucleus of
// topP found by sorting (ties to the lower id), renormalised; member says
// whether tok is in the nucleus.
func refSampleLogProbs(logits []float32, temp, topP float64, tok int) (full, nucleus float64, member bool) {
	m := float64(slices.Max(logits))
	probs := make([]float64, len(logits))
	z := 0.0
	for i, l := range logits {
		probs[i] = math.Exp((float64(l) - m) / temp)
		z += probs[i]
	}
	order := make([]int, len(logits))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(probs[b], probs[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	mass := 0.0
	for k := 0; k < len(order) && (mass < topP*z || topP >= 1); k++ {
		mass += probs[order[k]]
		member = member || order[k] == tok
	}
	scaled := (float64(logits[tok]) - m) / temp
	return scaled - math.Log(z), scaled - math.Log(mass), member
}

// bruteNucleus sorts the whole vocabulary to find the nucleus; the
// returned function samples its members in index order. It is the
// reference for sampler.nucleus.
func bruteNucleus(logits []float32, temp, topP float64) func(u float64) int {
	m := float64(slices.Max(logits))
	probs := make([]float64, len(logits))
	z := 0.0
	for i, l := range logits {
		probs[i] = math.Exp((float64(l) - m) / temp)
		z += probs[i]
	}
	order := make([]int, len(logits))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(probs[b], probs[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	member := make([]bool, len(logits))
	for acc, k := 0.0, 0; acc < topP*z; k++ {
		acc += probs[order[k]]
		member[order[k]] = true
	}
	mass := 0.0
	for i, p := range probs {
		if member[i] {
			mass += p
		}
	}
	return func(u float64) int {
		acc, last := 0.0, 0
		for i, p := range probs {
			if member[i] && p > 0 {
				if acc, last = acc+p, i; acc > u*mass {
					return i
				}
			}
		}
		return last
	}
}

func TestNucleusMatchesFullSort(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	cases := []struct {
		name  string
		scale float64
		topP  float64
	}{
		{"peaked", 8, 0.9},
		{"flat", 0.01, 0.95},
		{"middle", 2, 0.5},
		{"tail needs the lowest floor", 30, 0.999999999999},
		{"many ties", -1, 0.6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logits := make([]float32, 3000)
			for i := range logits {
				logits[i] = float32(rng.NormFloat64() * c.scale)
				if c.scale < 0 {
					logits[i] = float32(rng.Intn(4))
				}
			}
			s := sampler{1, c.topP}
			brute := bruteNucleus(logits, 1, c.topP)
			for range 200 {
				u := rng.Float64()
				got, _, _, _ := s.draw(logits, u)
				if want := brute(u); got != want {
					t.Fatalf("u=%g: nucleus drew %d, full sort %d", u, got, want)
				}
			}
		})
	}
}

func TestSamplerGreedyTies(t *testing.T) {
	tok, _, _, err := sampler{0, 1}.draw([]float32{1, 3, 3, 2}, 0.99)
	if err != nil || tok != 1 {
		t.Fatalf("greedy drew %d (%v), want the first maximum 1", tok, err)
	}
}

func TestSamplerErrors(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	cases := []struct {
		name   string
		logits []float32
	}{
		{"empty", nil},
		{"NaN", []float32{0, nan}},
		{"+Inf", []float32{0, inf}},
		{"all -Inf", []float32{-inf, -inf}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, _, _, err := (sampler{1, 1}).draw(c.logits, 0.5); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestParallel(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100} {
		hits := make([]int, n)
		parallel(n, func(i int) { hits[i]++ })
		if slices.ContainsFunc(hits, func(h int) bool { return cmp.Compare(h, 1) != 0 }) {
			t.Fatalf("n=%d: hits %v, want each index once", n, hits)
		}
	}
}
