package server

import (
	"context"
	"errors"
	"sync"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// eachChoice runs choice for i < n at once, so that the choices of one
// request decode as rows of one batch. The first error cancels the
// others and is returned (an error other than the cancellation it caused
// when there is one).
func eachChoice(ctx context.Context, n int, choice func(ctx context.Context, i int) error) error {
	if n == 1 {
		return choice(ctx, 0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if errs[i] = choice(ctx, i); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	return first
}

// newBatcher is a continuous batcher on m: its session is every request
// decoding on m.
func newBatcher(m *policy.Model) *rollout.Batcher {
	return rollout.NewBatcher(func() rollout.Rows { return m.NewSession(0, m.Context()) }, m.Context(), m.Config.VocabSize)
}
