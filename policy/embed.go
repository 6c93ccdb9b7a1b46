package policy

import "fmt"

// MeanHidden returns the mean over the tokens of ids of the final hidden
// states after the final norm (the pre-logit activations) [C], computed
// in plain Go with no gradients; the same ids always give the same
// vector. An empty ids gives a zero vector. It returns the backend's
// error when a kernel fails. It panics (programmer errors)
// on a token outside the vocabulary or more than max_position_embeddings
// tokens.
func (m *Model) MeanHidden(ids []int) ([]float32, error) {
	g := geometryOf(m.Config)
	mean := make([]float32, g.C) // [C]
	if len(ids) == 0 {
		return mean, nil
	}
	if len(ids) > m.Config.MaxPositionEmbeddings {
		panic(fmt.Sprintf("policy: MeanHidden got %d tokens, over max_position_embeddings %d", len(ids), m.Config.MaxPositionEmbeddings))
	}
	x, err := m.finalHidden(ids) // [N, C]
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	sum := make([]float64, g.C)
	for t := range ids {
		for c, v := range x[t*g.C : (t+1)*g.C] {
			sum[c] += float64(v)
		}
	}
	for c := range mean {
		mean[c] = float32(sum[c] / float64(len(ids)))
	}
	return mean, nil
}

// finalHidden returns the hidden states of ids after the final norm,
// [N, C], on the host.
func (m *Model) finalHidden(ids []int) ([]float32, error) {
	s := m.NewSession(1, len(ids))
	defer s.Close()
	lay, err := s.layout([][]int{ids})
	if err != nil {
		panic(err) // the caller checked the length
	}
	x, err := s.forward(lay) // [N, C]
	if err != nil {
		return nil, err
	}
	defer m.be.Free(x)
	norm, err := m.weight(m.Norm)
	if err != nil {
		return nil, err
	}
	if err := m.be.RMSNorm(x, x, norm, s.g.C, s.g.eps); err != nil {
		return nil, err
	}
	return download(m.be, x)
}
