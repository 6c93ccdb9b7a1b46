package policy

// The products of a decoding step, laid out so that each sequence's
// numbers do not depend on what the other sequences of the step are fed:
// a server that decodes requests together then samples what each request
// samples alone.

import "github.com/artist-rl/artist/policy/backend"

// rowKernel is a backend's product whose rows are computed independently
// of one another: a row of y is the same bit for bit whatever m is, where
// the row sits, and what the other rows hold (cpu.Backend.LinearRows).
type rowKernel interface {
	LinearRows(m, n, k int, a, w, y backend.Tensor) error
}

// product computes y = x·wᵀ + bias for the rows of lay (x [N, in], w
// [out, in], y [N, out]): a rowwise layout's rows through rowsLinear,
// another's in one product.
func (s *Session) product(y, x backend.Tensor, lay layout, in int, w, bias backend.Tensor, out int) error {
	N := len(lay.tokens)
	if !lay.rowwise {
		return linear(s.m.be, y, x, N, in, w, bias, out)
	}
	return s.rowsLinear(y, x, N, in, w, bias, out)
}

// addProduct is y += x·wᵀ over the rows of lay, computed as product
// computes them; acc holds N rows of out values for a rowwise layout.
func (s *Session) addProduct(y, x backend.Tensor, lay layout, in int, w backend.Tensor, out int, acc backend.Tensor) error {
	N := len(lay.tokens)
	if !lay.rowwise {
		return s.m.be.MatMul(false, true, N, out, in, x, w, 1, y)
	}
	if err := s.rowsLinear(acc, x, N, in, w, backend.Tensor{}, out); err != nil {
		return err
	}
	return s.m.be.Add(y.Slice(0, N*out), acc.Slice(0, N*out))
}

// rowsLinear is linear over m rows with every row computed independently
// of the others: the backend's rowKernel, or one product per row on a
// backend without one.
func (s *Session) rowsLinear(y, x backend.Tensor, m, in int, w, bias backend.Tensor, out int) error {
	if m == 0 {
		return nil
	}
	be := s.m.be
	y = y.Slice(0, m*out)
	if rk, ok := be.(rowKernel); ok {
		if err := rk.LinearRows(m, out, in, x.Slice(0, m*in), w, y); err != nil {
			return err
		}
		if bias.Len() > 0 {
			return be.AddBias(y, bias)
		}
		return nil
	}
	for i := range m {
		if err := linear(be, y.Slice(i*out, (i+1)*out), x.Slice(i*in, (i+1)*in), 1, in, w, bias, out); err != nil {
			return err
		}
	}
	return nil
}
