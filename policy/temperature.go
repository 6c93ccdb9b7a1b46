package policy

import "github.com/artist-rl/artist/policy/backend"

// SetTemperature makes LogProbs and Backward score tokens under
// softmax(logits / t), the distribution a sampler at temperature t draws
// from, as verl's and TRL's trainers divide the logits by the rollout
// temperature before the log-softmax. t ≤ 0 or 1 is the plain softmax
// (the default). Gradients are those of the scaled log-probs. Changing it
// drops the compiled training graphs.
func (m *Model) SetTemperature(t float64) {
	inv := float32(1)
	if t > 0 {
		inv = float32(1 / t)
	}
	if inv == m.invTemp() {
		return
	}
	m.dropGraphs()
	m.invT = inv
}

// Temperature returns the temperature of LogProbs and Backward (1 unless
// SetTemperature changed it).
func (m *Model) Temperature() float64 { return 1 / float64(m.invTemp()) }

// invTemp is 1/temperature, 1 when unset.
func (m *Model) invTemp() float32 {
	if m.invT == 0 {
		return 1
	}
	return m.invT
}

// scale multiplies x by inv (1/temperature) in place; nothing when inv
// is 1.
func scale(be backend.Backend, x backend.Tensor, inv float32) error {
	if inv == 1 {
		return nil
	}
	return be.Scale(x, inv)
}

// scaleLogits divides logits by the temperature in place.
func scaleLogits(logits []float32, inv float32) {
	if inv == 1 {
		return
	}
	for i := range logits {
		logits[i] *= inv
	}
}
