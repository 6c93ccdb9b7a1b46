package cuda

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cuda/kernels"
)

var _ backend.Sampler = (*Backend)(nil)

// Sample draws the next token of each row of logits [n, v] on the device
// (backend.Sampler): tokens, logprobs and nucleus (optional) hold n
// values, us n values unless temperature is 0.
func (b *Backend) Sample(tokens, logprobs, nucleus, logits, us backend.Tensor, n, v int, temperature, topP float32) error {
	if err := b.args("Sample", tokens, logprobs, nucleus, logits, us); err != nil {
		return err
	}
	if n < 0 || v <= 0 {
		return fmt.Errorf("%s: Sample: %d rows of %d logits", b.name, n, v)
	}
	need := []any{"tokens", tokens.Len(), n, "logprobs", logprobs.Len(), n, "logits", logits.Len(), n * v}
	if nucleus.Len() > 0 {
		need = append(need, "nucleus", nucleus.Len(), n)
	}
	if temperature != 0 {
		need = append(need, "us", us.Len(), n)
	}
	if err := b.fits("Sample", need...); err != nil || n == 0 {
		return err
	}
	return b.wrap("Sample", kernels.Sample(b.dev, tokens.Addr(), logprobs.Addr(), nucleus.Addr(), logits.Addr(), us.Addr(), n, v, temperature, topP))
}
