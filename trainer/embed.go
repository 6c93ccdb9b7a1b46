package trainer

import (
	"context"
	"github.com/artist-rl/artist/envs/library"
	"github.com/artist-rl/artist/policy"
)

// PolicyEmbedder embeds texts with a run's own policy: the mean of the
// model's final hidden states after the final norm over the text's
// tokens (policy.Model.MeanHidden), so demonstrations are similar to a
// task when the policy reads them alike. A text longer than the model's
// context is cut to its first max_position_embeddings tokens. It runs
// inference only and reads the weights as they are at each call, so it
// must not be used while they are being updated.
type PolicyEmbedder struct {
	Model     *policy.Model
	Tokenizer *policy.Tokenizer
}

var _ library.Embedder = PolicyEmbedder{}

// Embed returns the policy's embedding of text [hidden_size], or ctx's
// error when ctx has ended.
func (e PolicyEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids := e.Tokenizer.Encode(text)
	return e.Model.MeanHidden(ids[:min(len(ids), e.Model.Config.MaxPositionEmbeddings)])
}
