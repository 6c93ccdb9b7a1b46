//go:build unix

package policy

import (
	"math"
	"strings"
	"testing"
)

// TestResidentTrainingState checks the device side of the training state
// on the arena: ZeroGrad clears the device gradients, an in-place update
// of the device weights (as an optimizer makes, then WeightsUpdated) is
// what Clone, SaveModel and HostWeights see, and SyncWeights refuses to
// upload Param.Data over it until HostWeights brought it back.
func TestResidentTrainingState(t *testing.T) {
	m := testModel(t, false, 71)
	m.UseBackend(newArena(t))
	seqs, coef := batchFor(72, m.Config.VocabSize)
	if _, err := m.Backward(seqs, coef); err != nil {
		t.Fatal(err)
	}
	if err := m.HostGrads(); err != nil {
		t.Fatal(err)
	}
	if !anyNonZero(m.Norm.Grad) {
		t.Fatal("Backward left no gradient on the device")
	}
	if err := m.ZeroGrad(); err != nil {
		t.Fatal(err)
	}
	if err := m.HostGrads(); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.TrainParams() {
		if anyNonZero(p.Grad) {
			t.Fatalf("after ZeroGrad the device gradient of %s is not zero", p.Name)
		}
	}
	before := m.Norm.Data[0]
	w, err := m.WeightTensor(m.Norm)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Backend().Scale(w, 2); err != nil {
		t.Fatal(err)
	}
	m.WeightsUpdated()
	if m.Norm.Data[0] != before {
		t.Fatal("Param.Data changed before HostWeights")
	}
	if err := m.SyncWeights(); err == nil || !strings.Contains(err.Error(), "HostWeights") {
		t.Fatalf("SyncWeights over newer device weights: err = %v, want a refusal naming HostWeights", err)
	}
	if got := m.Clone().Norm.Data[0]; got != 2*before {
		t.Errorf("Clone saw %g, want the device's %g", got, 2*before)
	}
	if m.Norm.Data[0] != 2*before {
		t.Errorf("after Clone Param.Data holds %g, want %g", m.Norm.Data[0], 2*before)
	}
	if err := m.SyncWeights(); err != nil {
		t.Errorf("SyncWeights after the weights came back: %v", err)
	}
}

func anyNonZero(x []float32) bool {
	for _, v := range x {
		if v != 0 && !math.IsNaN(float64(v)) {
			return true
		}
	}
	return false
}
