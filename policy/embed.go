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
	s := m.NewSession(1, len(ids))
	lay, err := s.layout([][]int{ids})
	if err != nil {
		panic(err) // the length was checked above
	}
	x, err := s.forward(lay) // [N, C]
	if err != nil {
		return nil, err
	}
	if err := m.be.RMSNorm(host(x), host(x), host(m.Norm.Data), g.C, g.eps); err != nil {
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
