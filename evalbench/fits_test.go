package evalbench

import (
	"context"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// byteTok is a tokenizer of one token per byte, EOS 256.
type byteTok struct{}

func (byteTok) Encode(s string) []int {
	ids := make([]int, len(s))
	for i := range len(s) {
		ids[i] = int(s[i])
	}
	return ids
}

func (byteTok) Decode(ids []int) string {
	b := make([]byte, 0, len(ids))
	for _, id := range ids {
		if id < 256 {
			b = append(b, byte(id))
		}
	}
	return string(b)
}

func (byteTok) EOS() int { return 256 }

// noPolicy stands for a model of n positions; Check never decodes.
type noPolicy struct {
	rollout.Policy
	n int
}

func (p noPolicy) Context() int { return p.n }

// TestCheckNamesWhatDoesNotFit: a prompt that alone overflows the context
// is named as such; one that overflows only with the response budget asks
// for a smaller budget.
func TestCheckNamesWhatDoesNotFit(t *testing.T) {
	rc := rollout.DefaultConfig()
	rc.MaxResponseTokens, rc.MaxToolCalls = 100, 0
	e := Engine{Engine: &rollout.Engine{Policy: noPolicy{n: 150}, Tokenizer: byteTok{}, Tool: envs.Disabled{}, Format: format.DefaultFormat(), Config: rc}}
	cases := []struct {
		prompt, want, not string
	}{
		{strings.Repeat("x", 200), "its prompt alone takes 201 tokens, over the model's context of 150: the prompt does not fit", "max_response_tokens"},
		{strings.Repeat("x", 80), "lower rollout.max_response_tokens", "prompt alone"},
		{"short", "", ""},
	}
	for i, c := range cases {
		err := e.Check(context.Background(), []envs.Task{{ID: "p", Prompt: c.prompt}})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("case %d: %v; want it to fit", i, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not)):
			t.Errorf("case %d: %v; want %q without %q", i, err, c.want, c.not)
		}
	}
}
