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

// Trajectory is the core record of one rollout. Tokens, Mask and LogProbs
// always have the same length: Append is the only way to grow them.
//
// Mask is 1 for tokens the policy sampled and 0 for prompt and tool-result
// tokens; only mask-1 tokens enter the loss. LogProbs holds the sampling-time
// log-probability of each mask-1 token under the policy at temperature 1
// (what the training path recomputes), and 0 elsewhere.
type Trajectory struct {
	Task      envs.Task  `json:"task"`
	Group     int        `json:"group"` // index of the task's group in the batch
	Tokens    []int      `json:"tokens"`
	Mask      []uint8    `json:"mask"`
	LogProbs  []float32  `json:"logprobs"`
	PromptLen int        `json:"prompt_len"`
	Response  string     `json:"response"` // decoded text after the prompt, tool results included
	Calls     []Call     `json:"calls"`
	Stop      StopReason `json:"stop"`
	// Turns counts the user turns the policy was given: 1 plus the later
	// user messages of a multi-turn task appended so far.
	Turns int `json:"turns"`
	// Replies is the conversation with the user of an envs.UserSession:
	// at each end of the policy's turn, what it said and the answer.
	Replies []Reply `json:"replies,omitempty"`
}

// Reply is one exchange with the user of an envs.UserSession.
type Reply struct {
	Said    string `json:"said"`    // the policy's text of the turn it ended, the stop token left out
	Message string `json:"message"` // the user's answer, as given (before rendering and cutting); "" when Done
	Done    bool   `json:"done"`    // the user ended the conversation
}

// Append adds tokens with one mask value and their log-probs. logprobs may
// be nil (all zero); otherwise it must match tokens in length.
func (t *Trajectory) Append(tokens []int, mask uint8, logprobs []float32) {
	if logprobs != nil && len(logprobs) != len(tokens) {
		panic(fmt.Sprintf("rollout: Append got %d tokens and %d logprobs", len(tokens), len(logprobs)))
	}
	t.Tokens = append(t.Tokens, tokens...)
	for i := range tokens {
		t.Mask = append(t.Mask, mask)
		lp := float32(0)
		if logprobs != nil {
			lp = logprobs[i]
		}
		t.LogProbs = append(t.LogProbs, lp)
	}
}

// Validate checks the invariants of the record.
func (t *Trajectory) Validate() error {
	if len(t.Mask) != len(t.Tokens) || len(t.LogProbs) != len(t.Tokens) {
		return fmt.Errorf("rollout: trajectory has %d tokens, %d mask values, %d logprobs", len(t.Tokens), len(t.Mask), len(t.LogProbs))
	}
	if t.PromptLen > len(t.Tokens) {
		return fmt.Errorf("rollout: prompt length %d exceeds %d tokens", t.PromptLen, len(t.Tokens))
	}
	for i := 0; i < t.PromptLen; i++ {
		if t.Mask[i] != 0 {
			return fmt.Errorf("rollout: prompt token %d has mask 1", i)
		}
	}
	return nil
}

// ModelTokens counts the tokens the policy sampled (mask 1).
func (t *Trajectory) ModelTokens() int {
	n := 0
	for _, m := range t.Mask {
		n += int(m)
	}
	return n
}
