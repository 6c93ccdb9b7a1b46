package rollout

import (
	"fmt"
	"slices"
)

// Sequence is one training sequence of a trajectory: its tokens, who
// wrote each (Kinds), the loss mask, the sampler's log-probs and the
// length of its prompt, with the invariants of Trajectory's fields of
// the same names.
type Sequence struct {
	Tokens          []int     `json:"tokens"`
	Kinds           []Kind    `json:"kinds"`
	Mask            []uint8   `json:"mask"`
	LogProbs        []float32 `json:"logprobs"`
	NucleusLogProbs []float32 `json:"nucleus_logprobs,omitempty"`
	PromptLen       int       `json:"prompt_len"`
}

// last is the trajectory's last sequence, the one its own fields hold.
func (t *Trajectory) last() Sequence {
	return Sequence{Tokens: t.Tokens, Kinds: t.Kinds, Mask: t.Mask, LogProbs: t.LogProbs, NucleusLogProbs: t.NucleusLogProbs, PromptLen: t.PromptLen}
}

// Sequences returns every sequence of the trajectory in order: its
// Splits, then the last one. A trajectory never split has one.
func (t *Trajectory) Sequences() []Sequence {
	return append(slices.Clone(t.Splits), t.last())
}

// Rows returns the trajectory as training rows, one per sequence: t
// itself when it was never split, else a shallow copy of t per sequence
// (the same task, group, response, calls and stop, so the same reward
// and advantage) holding that sequence's tokens and no Splits.
func (t *Trajectory) Rows() []*Trajectory {
	if len(t.Splits) == 0 {
		return []*Trajectory{t}
	}
	rows := make([]*Trajectory, 0, len(t.Splits)+1)
	for _, s := range t.Sequences() {
		c := *t
		c.Splits = nil
		c.Tokens, c.Kinds, c.Mask, c.LogProbs, c.NucleusLogProbs, c.PromptLen = s.Tokens, s.Kinds, s.Mask, s.LogProbs, s.NucleusLogProbs, s.PromptLen
		rows = append(rows, &c)
	}
	return rows
}

// split closes the trajectory's current sequence (moving it to Splits)
// and starts a new one whose prompt is prompt, all of it KindPrompt:
// context the policy continues, out of the loss.
func (t *Trajectory) split(prompt []int) {
	if len(t.NucleusLogProbs) > 0 {
		t.padNucleus()
	}
	t.Splits = append(t.Splits, t.last())
	t.Tokens, t.Kinds, t.Mask, t.LogProbs, t.PromptLen = nil, nil, nil, nil, len(prompt)
	if t.NucleusLogProbs != nil {
		t.NucleusLogProbs = []float32{}
	}
	t.Append(prompt, KindPrompt, nil)
}

// validate checks the invariants of one sequence (see Trajectory).
func (s Sequence) validate() error {
	n := len(s.Tokens)
	if len(s.Mask) != n || len(s.LogProbs) != n || len(s.Kinds) != n {
		return fmt.Errorf("rollout: trajectory has %d tokens, %d kinds, %d mask values, %d logprobs", n, len(s.Kinds), len(s.Mask), len(s.LogProbs))
	}
	if s.PromptLen > n {
		return fmt.Errorf("rollout: prompt length %d exceeds %d tokens", s.PromptLen, n)
	}
	if k := len(s.NucleusLogProbs); k != 0 && k != n {
		return fmt.Errorf("rollout: trajectory has %d tokens and %d nucleus log-probs", n, k)
	}
	for i, k := range s.Kinds {
		if !k.valid() {
			return fmt.Errorf("rollout: token %d has invalid kind %d", i, k)
		}
		if (i < s.PromptLen) != (k == KindPrompt) {
			return fmt.Errorf("rollout: token %d is %s with a prompt of %d tokens", i, k, s.PromptLen)
		}
		if s.Mask[i] != k.Mask() {
			return fmt.Errorf("rollout: token %d is %s with mask %d", i, k, s.Mask[i])
		}
	}
	return nil
}
