package trainer

import (
	"context"
	"fmt"
	"math/rand"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
)

// fcTask is the "bfcl" task family of a run: the entries of its split,
// the environment that runs their calls and the rewards that judge them.
type fcTask struct {
	data           *bfcl.Data
	train, heldout []bfcl.Entry
	fc             *reward.FC
}

// newFCTask loads the category and splits its entries, shuffled by the
// split seed, into the training pool and the validation set.
func newFCTask(c BFCLTaskConfig, f rollout.Format) (*fcTask, envs.List, []envs.Task, error) {
	d, err := bfcl.Load(c.Data)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("trainer: task.bfcl.data: %w (fetch it with scripts/fetch-data.sh)", err)
	}
	entries, err := d.Entries(c.Category)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("trainer: task.bfcl: %w", err)
	}
	if c.Train+c.Heldout > len(entries) {
		return nil, nil, nil, fmt.Errorf("trainer: task.bfcl: train %d + heldout %d exceed the %d entries of %s", c.Train, c.Heldout, len(entries), c.Category)
	}
	perm := rand.New(rand.NewSource(c.SplitSeed)).Perm(len(entries))
	ft := &fcTask{data: d}
	for i, p := range perm[:c.Train+c.Heldout] {
		if i < c.Train {
			ft.train = append(ft.train, entries[p])
		} else {
			ft.heldout = append(ft.heldout, entries[p])
		}
	}
	opts := bfcl.TaskOptions{Docs: c.Docs}
	train, err := bfcl.Tasks(d, ft.train, opts)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("trainer: task.bfcl: %w", err)
	}
	heldout, err := bfcl.Tasks(d, ft.heldout, opts)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("trainer: task.bfcl: %w", err)
	}
	if ft.fc, err = reward.NewFC(d, c.Category, FCFormatOf(f)); err != nil {
		return nil, nil, nil, fmt.Errorf("trainer: reward: %w", err)
	}
	return ft, train, heldout, nil
}

// FCFormatOf reads the function-calling tags from the rollout format: the
// think tag holds reasoning, the code tag the calls and the output tag
// their results.
func FCFormatOf(f rollout.Format) reward.FCFormat {
	return reward.FCFormat{Reasoning: f.Think, Tool: f.Code, Result: f.Output}
}

// tool runs the calls of every entry of the split.
func (ft *fcTask) tool() *bfcl.Tool {
	return bfcl.NewTool(ft.data, append(append([]bfcl.Entry(nil), ft.train...), ft.heldout...))
}

// demonstrations writes the ART-style library of the task family: one
// demonstration per training entry, replaying its ground truth turn by
// turn on the entry's instances, so every result in it is real. Each turn
// states its plan (the functions it will call) in the think block, makes
// the turn's calls in one code block as a Python list, and ends with a
// short reply and the end-of-sequence text; a turn without ground-truth
// calls says so instead. Later user turns are rendered by userTurn and
// carry loss mask 0, like the results.
func (ft *fcTask) demonstrations(ctx context.Context, f rollout.Format, tasks []envs.Task, userTurn func(string) string, eos string) ([]Demo, error) {
	tool := ft.tool()
	byID := map[string]bfcl.Entry{}
	for _, e := range ft.train {
		byID[e.ID] = e
	}
	demos := make([]Demo, len(tasks))
	for i, task := range tasks {
		e, ok := byID[task.ID]
		if !ok {
			return nil, fmt.Errorf("trainer: demonstrations: %s is not a training entry", task.ID)
		}
		sess := tool.OpenSession(task).(*bfcl.Session)
		d := Demo{Task: task, UsesTool: true}
		for k, calls := range e.GroundTruth {
			if k > 0 {
				sess.StartTurn(k)
				d.Segments = append(d.Segments, Segment{Text: userTurn(task.Turns[k-1]), Tool: true})
			}
			if len(calls) == 0 {
				d.Segments = append(d.Segments, Segment{Text: block(f.Think, "No function fits this request; I need more information.") + "Please give me the missing details." + eos})
				continue
			}
			input := "[" + strings.Join(calls, ", ") + "]"
			res := sess.Call(ctx, input)
			d.Segments = append(d.Segments,
				Segment{Text: block(f.Think, "I will call "+strings.Join(callNames(calls), ", ")+".") + block(f.Code, input)},
				Segment{Text: rollout.ResultBlock(f, res.Output), Tool: true},
				Segment{Text: "Done." + eos})
		}
		sess.Close()
		demos[i] = d
	}
	return demos, nil
}

// callNames are the function names of call strings, in order.
func callNames(calls []string) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		name, _, _ := strings.Cut(c, "(")
		out[i] = strings.TrimSpace(name)
	}
	return out
}

// RenderTurn renders a later user message of a multi-turn task: on its
// own line (plain), or as a user turn of the chat template followed by the
// opened assistant turn (chat).
func (p PromptConfig) RenderTurn(msg string) string {
	if p.Template == "chat" {
		return "\n" + policy.ImStart + "user\n" + msg + policy.ImEnd + "\n" + policy.ImStart + "assistant\n"
	}
	return rollout.UserTurnText(msg)
}
