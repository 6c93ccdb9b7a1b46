package runlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Kind names what a segment of a rollout is.
type Kind string

// The segment kinds, in the vocabulary of the package doc.
const (
	Prompt     Kind = "prompt"
	Model      Kind = "model"
	ToolCall   Kind = "tool_call"
	ToolResult Kind = "tool_result"
	UserTurn   Kind = "user_turn"
)

// Segment is one span of a rollout's text.
type Segment struct {
	Kind   Kind   `json:"kind"`
	Text   string `json:"text"`
	Tokens int    `json:"tokens"` // tokens in the span
	Masked bool   `json:"masked"` // loss mask 0: the tokens never enter the loss
	// Status is the call's outcome (ok, empty, error, timeout) on a
	// tool_result segment; Truncated says its result was cut to the
	// result-token budget.
	Status    string `json:"status,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Sample is one rollout of one evaluation: one line of samples/<eval>.jsonl.
type Sample struct {
	Eval   string `json:"eval"`   // evaluation tag: warmstart, step-000050, final
	Step   int    `json:"step"`   // GRPO step the evaluation ran after (0: warm start)
	Task   string `json:"task"`   // task id
	Family string `json:"family"` // task family (task.name): arith, math, bfcl
	Group  int    `json:"group"`  // index of the task's group in the evaluation
	// Correct says whether the rollout solved its task; Verdict says it in
	// words (for function calling, the official checker's verdict).
	Correct bool    `json:"correct"`
	Verdict string  `json:"verdict"`
	Gold    string  `json:"gold,omitempty"` // the task's gold answer, when it has one
	Stop    string  `json:"stop"`           // rollout.StopReason
	Reward  float64 `json:"reward"`         // total reward
	// Rewards is each reward component's unweighted score.
	Rewards     map[string]float64 `json:"rewards,omitempty"`
	ToolCalls   int                `json:"tool_calls"`
	ModelTokens int                `json:"model_tokens"` // tokens the policy sampled (mask 1)
	Tokens      int                `json:"tokens"`       // all tokens, prompt included
	Segments    []Segment          `json:"segments"`
}

// Meta is what the trainer knows about a rollout beyond the trajectory.
type Meta struct {
	Eval    string
	Step    int
	Family  string
	Correct bool
	Verdict string
	Reward  float64
	Rewards map[string]float64
}

// Decoder turns token ids into text; every rollout.Tokenizer is one.
type Decoder interface {
	Decode(ids []int) string
}

// NewSample builds the record of trajectory t: m as given, the task and
// stop reason from t, and t's segments (see Segments).
func NewSample(t *rollout.Trajectory, dec Decoder, f format.Format, m Meta) Sample {
	return Sample{
		Eval: m.Eval, Step: m.Step, Task: t.Task.ID, Family: m.Family, Group: t.Group,
		Correct: m.Correct, Verdict: m.Verdict, Gold: t.Task.Answer, Stop: string(t.Stop),
		Reward: m.Reward, Rewards: m.Rewards, ToolCalls: len(t.Calls),
		ModelTokens: t.ModelTokens(), Tokens: len(t.Tokens),
		Segments: Segments(t, dec, f),
	}
}

// WriteSamples writes samples, one JSON object a line, to path, replacing
// the file atomically; it creates path's folder.
func WriteSamples(path string, samples []Sample) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("runlog: %w", err)
	}
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for i := range samples {
			if err := enc.Encode(&samples[i]); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("runlog: write %s: %w", path, err)
	}
	return nil
}

// ReadSamples reads a file WriteSamples wrote. An empty line is skipped;
// a line that is not a Sample is an error naming the line.
func ReadSamples(r io.Reader) ([]Sample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	var out []Sample
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var s Sample
		if err := json.Unmarshal(line, &s); err != nil {
			return nil, fmt.Errorf("runlog: line %d: %w", n, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("runlog: %w", err)
	}
	return out, nil
}
