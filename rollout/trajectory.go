package rollout

import (
	"fmt"

	"github.com/artist-rl/artist/envs"
)

// StopReason says why a trajectory ended.
type StopReason string

const (
	StopAnswer   StopReason = "answer"    // the closing answer tag was written
	StopEOS      StopReason = "eos"       // the end-of-sequence token was sampled
	StopLength   StopReason = "length"    // the response token budget ran out
	StopMaxTurns StopReason = "max_turns" // a tool call past the call budget was attempted
)

// Call is one tool call made inside a trajectory.
type Call struct {
	Input     string      `json:"input"` // code between the code tags
	Result    envs.Result `json:"result"`
	Truncated bool        `json:"truncated"` // the result was cut to the result-token budget
	Turn      int         `json:"turn"`      // the user turn (0 first) in which the policy made the call
}

// Trajectory is the core record of one rollout. Tokens, Kinds, Mask and
// LogProbs always have the same length: Append is the only way to grow them.
//
// Kinds says who wrote each token (see Kind); Mask derives from it: 1 for
// the tokens the policy sampled (KindModel, KindToolCall), 0 for prompt,
// tool-result and user-turn tokens. Only mask-1 tokens enter the loss.
// LogProbs holds the sampling-time log-probability of each mask-1 token
// under softmax(logits / Config.Temperature) over the whole vocabulary,
// the quantity the trainer recomputes at the same temperature (with
// top_p < 1, NucleusLogProbs holds the renormalised nucleus's), and 0
// elsewhere.
type Trajectory struct {
	Task      envs.Task `json:"task"`
	Group     int       `json:"group"` // index of the task's group in the batch
	Tokens    []int     `json:"tokens"`
	Kinds     []Kind    `json:"kinds"`
	Mask      []uint8   `json:"mask"`
	LogProbs  []float32 `json:"logprobs"`
	PromptLen int       `json:"prompt_len"`
	Response  string    `json:"response"` // decoded text after the prompt, tool results included (with Engine.Chat: a transcription in the format's tags)
	Calls     []Call    `json:"calls"`
	// ToolState is what the trajectory's tool session left when it closed
	// (envs.StateSession.EndState), for rewards that score the end state;
	// nil when the tool keeps none or no call was made. It is not
	// serialised: a trajectory read back has none, and rewards then
	// replay its calls.
	ToolState any        `json:"-"`
	Stop      StopReason `json:"stop"`
	// Turns counts the user turns the policy was given: 1 plus the later
	// user messages of a multi-turn task appended so far.
	Turns int `json:"turns"`
	// Replies is the conversation with the user of an envs.UserSession:
	// at each end of the policy's turn, what it said and the answer.
	Replies []Reply `json:"replies,omitempty"`
	// NucleusLogProbs, recorded when rollout.top_p < 1 (empty otherwise),
	// holds each sampled token's log-prob under the distribution it was
	// drawn from: the nucleus of softmax(logits / T), renormalised; 0 on
	// the tokens the policy did not sample. LogProbs keeps the
	// full-vocabulary log-probs, which the GRPO ratio uses (see
	// docs/ARCHITECTURE.md).
	NucleusLogProbs []float32 `json:"nucleus_logprobs,omitempty"`
	// TemplateDiffers says that the chat template (Engine.Chat) renders
	// the finished conversation other than the text of Tokens (the last
	// sequence): a template that rewrites the last assistant turn (Llama
	// 3.1 trims its whitespace), or history the per-turn check did not
	// see (a row whose budget ran out at a turn). The trajectory keeps its
	// own ids. A rewrite at a tool or user turn splits the trajectory
	// instead (Splits, Config.TemplateDrift).
	TemplateDiffers bool `json:"template_differs,omitempty"`
	// Splits are the sequences of this trajectory closed before the one
	// Tokens holds, in order, under rollout.template_drift: split: each
	// ends at a tool or user turn after which the chat template renders
	// the conversation other than the ids held, and the next one starts
	// with that rendering as its prompt (all of it KindPrompt, mask 0).
	// Tokens, Kinds, Mask, LogProbs, NucleusLogProbs and PromptLen are
	// the last sequence's; the trajectory's reward applies to every one
	// (Rows). Empty for a trajectory that was never split.
	Splits []Sequence `json:"splits,omitempty"`
}

// Reply is one exchange with the user of an envs.UserSession.
type Reply struct {
	Said    string `json:"said"`    // the policy's text of the turn it ended, the stop token left out
	Message string `json:"message"` // the user's answer, as given (before rendering and cutting); "" when Done
	Done    bool   `json:"done"`    // the user ended the conversation
}

// Append adds tokens of one kind and their log-probs. logprobs may be nil
// (all zero); otherwise it must match tokens in length, and only tokens
// the policy sampled (Kind.Sampled) may carry them. It panics on an
// invalid kind: that is a programming error.
func (t *Trajectory) Append(tokens []int, kind Kind, logprobs []float32) {
	if !kind.valid() {
		panic(fmt.Sprintf("rollout: Append got invalid token kind %d", kind))
	}
	if logprobs != nil && len(logprobs) != len(tokens) {
		panic(fmt.Sprintf("rollout: Append got %d tokens and %d logprobs", len(tokens), len(logprobs)))
	}
	if logprobs != nil && !kind.Sampled() {
		panic(fmt.Sprintf("rollout: Append got log-probs for %s tokens, which the policy did not sample", kind))
	}
	t.Tokens = append(t.Tokens, tokens...)
	m := kind.Mask()
	for i := range tokens {
		t.Kinds = append(t.Kinds, kind)
		t.Mask = append(t.Mask, m)
		lp := float32(0)
		if logprobs != nil {
			lp = logprobs[i]
		}
		t.LogProbs = append(t.LogProbs, lp)
	}
}

// Validate checks the invariants of the record: those of its last
// sequence and of each of its Splits.
func (t *Trajectory) Validate() error {
	if err := t.last().validate(); err != nil {
		return err
	}
	for i, s := range t.Splits {
		if err := s.validate(); err != nil {
			return fmt.Errorf("%w (split %d of %d)", err, i, len(t.Splits))
		}
	}
	return nil
}

// setNucleus records the nucleus log-prob of the last token, which the
// policy sampled.
func (t *Trajectory) setNucleus(lp float32) {
	t.padNucleus()
	t.NucleusLogProbs[len(t.NucleusLogProbs)-1] = lp
}

// padNucleus extends NucleusLogProbs with zeros to the length of Tokens.
func (t *Trajectory) padNucleus() {
	for len(t.NucleusLogProbs) < len(t.Tokens) {
		t.NucleusLogProbs = append(t.NucleusLogProbs, 0)
	}
}

// markCall relabels the last n tokens, which the policy sampled, as a
// tool call.
func (t *Trajectory) markCall(n int) {
	for i := len(t.Kinds) - n; i < len(t.Kinds); i++ {
		if t.Kinds[i] == KindModel {
			t.Kinds[i] = KindToolCall
		}
	}
}

// ModelTokens counts the tokens the policy sampled (mask 1), in every
// sequence of the trajectory (Splits included).
func (t *Trajectory) ModelTokens() int {
	n := 0
	for _, s := range t.Sequences() {
		for _, m := range s.Mask {
			n += int(m)
		}
	}
	return n
}
