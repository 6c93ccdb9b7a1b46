package bfcl

import (
	"context"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Demonstrations implements family.Set: the ART-style library of the
// family, one demonstration per training entry, replaying its ground
// truth turn by turn on the entry's instances, so every result in it is
// real. Each turn states its plan (the functions it will call) in the
// think block, makes the turn's calls in one code block as a Python list,
// and ends with a short reply and req.EOS; a turn without ground-truth
// calls says so instead. Later user turns are rendered by req.UserTurn
// and carry loss mask 0, like the results. req.Size, ToolFraction,
// Sample and RNG are not used.
func (s *Set) Demonstrations(ctx context.Context, req family.DemoRequest) ([]rollout.Demo, error) {
	f := req.Format
	tool := s.tool()
	demos := make([]rollout.Demo, len(s.trainTasks))
	for i, task := range s.trainTasks {
		e := s.train[i]
		if e.ID != task.ID {
			return nil, fmt.Errorf("bfcl: demonstrations: %s is not a training entry", task.ID)
		}
		sess := tool.OpenSession(task).(*Session)
		d := rollout.Demo{Task: task, UsesTool: true}
		for k, calls := range e.GroundTruth {
			if k > 0 {
				sess.StartTurn(k)
				d.Segments = append(d.Segments, rollout.Segment{Text: req.UserTurn(task.Turns[k-1]), Tool: true})
			}
			if len(calls) == 0 {
				d.Segments = append(d.Segments, rollout.Segment{Text: format.Block(f.Think, "No function fits this request; I need more information.") + "Please give me the missing details." + req.EOS})
				continue
			}
			input := "[" + strings.Join(calls, ", ") + "]"
			res := sess.Call(ctx, input)
			plan := format.Block(f.Think, "I will call "+strings.Join(CallNames(calls), ", ")+".")
			d.Segments = append(d.Segments, CallSegments(f, plan, input, res.Output, req.EOS)...)
		}
		sess.Close()
		demos[i] = d
		req.Report(i+1, len(demos))
	}
	return demos, nil
}

// CallSegments are a demonstration's turn that calls: plan then the
// call block of input, the result block of output (masked), and "Done."
// ending the turn with eos.
func CallSegments(f format.Format, plan, input, output, eos string) []rollout.Segment {
	return []rollout.Segment{
		{Text: plan + format.Block(f.Code, input)},
		{Text: format.ResultBlock(f, output), Tool: true},
		{Text: "Done." + eos},
	}
}

// CallNames are the function names of call strings ("f(a=1)"), in order.
func CallNames(calls []string) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		name, _, _ := strings.Cut(c, "(")
		out[i] = strings.TrimSpace(name)
	}
	return out
}
