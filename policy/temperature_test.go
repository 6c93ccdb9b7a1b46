package policy

import (
	"math"
	"math/rand"
	"testing"
)

// TestTemperatureLogProbs: after SetTemperature(0.7), LogProbs and
// Backward give log softmax(logits / 0.7) of the float64 reference, and
// Backward's gradients are those of the scaled log-probs (central
// differences of the reference objective); SetTemperature(1) restores the
// plain log-probs.
func TestTemperatureLogProbs(t *testing.T) {
	m := testModel(t, false, 1)
	seqs, coef := batchFor(2, m.Config.VocabSize)
	plain := logProbs(t, m, seqs)
	m.SetTemperature(0.7)
	if got := m.Temperature(); math.Abs(got-0.7) > 1e-6 {
		t.Fatalf("Temperature() = %v after SetTemperature(0.7)", got)
	}
	logp, err := m.Backward(seqs, coef)
	if err != nil {
		t.Fatal(err)
	}
	ref := refLogProbs(m, seqs)
	if d := maxAbsDiff(logp, ref); d > 1e-4 {
		t.Errorf("Backward vs reference at T=0.7: max abs diff %.3g", d)
	}
	if d := maxAbsDiff(logProbs(t, m, seqs), ref); d > 1e-4 {
		t.Errorf("LogProbs vs reference at T=0.7: max abs diff %.3g", d)
	}
	if d := maxAbsDiff(plain, ref); d < 1e-2 {
		t.Errorf("the T=0.7 reference is within %.3g of the plain log-probs: the test cannot tell them apart", d)
	}
	rng := rand.New(rand.NewSource(3))
	for _, p := range []*Param{m.Head, m.Layers[0].Q, m.Norm} {
		for _, j := range sampleEntries(rng, p, 3) {
			num, ana := numericGrad(m, p, j, seqs, coef), float64(p.Grad[j])
			if abs := math.Abs(ana - num); abs > 1e-4 && abs/math.Max(math.Abs(num), 1e-12) > 2e-3 {
				t.Errorf("%s[%d] at T=0.7: analytic %.6g, numeric %.6g", p.Name, j, ana, num)
			}
		}
	}
	m.SetTemperature(1)
	if d := maxAbsDiff(logProbs(t, m, seqs), refLogProbs(m, seqs)); d > 1e-4 {
		t.Errorf("LogProbs after SetTemperature(1): max abs diff %.3g from the plain reference", d)
	}
}
