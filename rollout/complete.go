package rollout

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
)

// CompleteConfig sets one plain completion (no tool loop): what a
// completions server does for one request.
type CompleteConfig struct {
	MaxTokens   int      // tokens to sample at most (at least 1)
	Temperature float64  // 0 is greedy
	TopP        float64  // nucleus mass in (0, 1]
	Stop        []string // stop strings, matched on the decoded text
	// OnToken, when set, is called after each sampled token, stop tokens
	// included, with the token's log-probability (as Trajectory.LogProbs
	// holds it) and, when NeedLogits is set, the logits it was drawn
	// from, which are valid only during the call (nil otherwise): a
	// server streams and reports log-probs with it.
	OnToken func(id int, logp float32, logits []float32)
	// NeedLogits asks for every step's logits on the host (for OnToken's
	// top log-probs). Without it a session that draws where it computes
	// (a row of a Batcher, a DeviceSession) brings back only the token.
	NeedLogits bool
}

// Completion is the result of Complete.
type Completion struct {
	Tokens []int // sampled tokens, the stopping one included
	// LogProbs[i] is the log-probability of Tokens[i] under
	// softmax(logits / Temperature) over the whole vocabulary (what the
	// trainer recomputes at the same temperature).
	LogProbs []float32
	// NucleusLogProbs[i] is the log-probability of Tokens[i] under the
	// renormalised top-p nucleus it was drawn from (LogProbs[i] at
	// top_p 1 or greedy). A Completer that does not know it leaves it
	// empty.
	NucleusLogProbs []float32
	Text            string // decoded Tokens, cut before the first stop string; without the stop token
	Stop            string // the stop string that ended the text, or ""
	EOS             bool   // a stop token (StopIDs: EOS or another end-of-turn id) ended it
	Length          bool   // MaxTokens ran out first
}

// Complete continues prompt with p, one sequence, sampling as Engine does
// (the same sampler, one rng.Float64 per token unless greedy; rng may be
// nil at temperature 0). It stops after any stop token of tok (StopIDs),
// after the token whose text completes one of cfg.Stop (the earliest
// occurrence wins, and Text ends before it, as OpenAI servers do), or after
// cfg.MaxTokens tokens. A stop found at the budget's last token counts as
// a stop, not as Length. The session holds len(prompt)+MaxTokens tokens;
// the caller keeps that within the model's context.
func Complete(ctx context.Context, p Policy, tok Tokenizer, prompt []int, cfg CompleteConfig, rng *rand.Rand) (Completion, error) {
	if len(prompt) == 0 {
		return Completion{}, errors.New("rollout: Complete needs a prompt")
	}
	sess := p.NewSession(1, len(prompt)+cfg.MaxTokens)
	defer closeSession(sess)
	return completeIn(ctx, sess, tok, prompt, cfg, rng)
}

// completeIn is Complete on sess, a session of one sequence that may
// hold earlier tokens already: feed (not empty) goes first. Every sampled
// token but the last is fed to sess.
func completeIn(ctx context.Context, sess Session, tok Tokenizer, feed []int, cfg CompleteConfig, rng *rand.Rand) (Completion, error) {
	if len(feed) == 0 || cfg.MaxTokens < 1 {
		return Completion{}, errors.New("rollout: Complete needs a prompt and max tokens ≥ 1")
	}
	if !(cfg.TopP > 0 && cfg.TopP <= 1) || !(cfg.Temperature >= 0) {
		return Completion{}, fmt.Errorf("rollout: Complete: temperature %g or top_p %g out of range", cfg.Temperature, cfg.TopP)
	}
	if rng == nil && cfg.Temperature != 0 {
		panic("rollout: Complete needs a seeded *rand.Rand unless temperature is 0")
	}
	smp := sampler{temperature: cfg.Temperature, topP: cfg.TopP}
	longest := 0
	for _, s := range cfg.Stop {
		longest = max(longest, len(s))
	}
	step := stepperOf(sess, cfg.NeedLogits)
	stops := StopIDs(tok)
	var c Completion
	var text strings.Builder
	for len(c.Tokens) < cfg.MaxTokens {
		if err := ctx.Err(); err != nil {
			return Completion{}, fmt.Errorf("rollout: %w", err)
		}
		u := 0.0
		if cfg.Temperature != 0 {
			u = rng.Float64()
		}
		d, err := step(feed, u, smp)
		if err != nil {
			return Completion{}, prefixed(err)
		}
		id := d.tok
		if cfg.OnToken != nil {
			cfg.OnToken(id, d.lp, d.logits)
		}
		c.Tokens, c.LogProbs, c.NucleusLogProbs, feed = append(c.Tokens, id), append(c.LogProbs, d.lp), append(c.NucleusLogProbs, d.nuc), []int{id}
		if slices.Contains(stops, id) {
			c.EOS, c.Text = true, text.String()
			return c, nil
		}
		prev := text.Len()
		text.WriteString(tok.Decode([]int{id}))
		if at, s := firstStop(text.String(), max(0, prev-longest+1), cfg.Stop); at >= 0 {
			c.Text, c.Stop = text.String()[:at], s
			return c, nil
		}
	}
	c.Text, c.Length = text.String(), true
	return c, nil
}

// prefixed is err with the package's prefix, which errors of a
// Batcher's rows already carry.
func prefixed(err error) error {
	if strings.HasPrefix(err.Error(), "rollout: ") {
		return err
	}
	return fmt.Errorf("rollout: %w", err)
}

// firstStop returns where the earliest stop string occurs in text at or
// after from, and which one (the longest on ties); -1 if none.
func firstStop(text string, from int, stops []string) (int, string) {
	at, which := -1, ""
	for _, s := range stops {
		if s == "" {
			continue
		}
		i := strings.Index(text[from:], s)
		if i < 0 {
			continue
		}
		if i += from; at < 0 || i < at || i == at && len(s) > len(which) {
			at, which = i, s
		}
	}
	return at, which
}
