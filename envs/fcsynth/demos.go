package fcsynth

import (
	"context"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Demonstrations implements family.Set: req.Size conversations drawn by
// req.Sample, each turn played on a real session of the conversation's
// instances, so every result in the library is real. With probability
// req.ToolFraction (drawn from req.RNG) a turn makes its ground-truth
// call: it names the function in the think block, writes the call in a
// code block, reads the result and replies "Done." and req.EOS; otherwise
// it names the function and replies without calling, which the checker
// fails, so the warm-started policy is imperfect and RL has something to
// learn. Later user turns are rendered by req.UserTurn and carry loss
// mask 0, like the results.
func (s *Set) Demonstrations(ctx context.Context, req family.DemoRequest) ([]rollout.Demo, error) {
	if req.Size < 1 {
		return nil, fmt.Errorf("fcsynth: demonstrations: size %d: set warmstart.demos >= 1", req.Size)
	}
	f := req.Format
	tool := s.tool()
	tasks := req.Sample(req.Size)
	demos := make([]rollout.Demo, len(tasks))
	for i, task := range tasks {
		e, ok := s.byID[task.ID]
		if !ok {
			return nil, fmt.Errorf("fcsynth: demonstrations: %s is not a conversation of the set", task.ID)
		}
		sess := tool.OpenSession(task).(*bfcl.Session)
		d := rollout.Demo{Task: task}
		for k, calls := range e.GroundTruth {
			if k > 0 {
				sess.StartTurn(k)
				d.Segments = append(d.Segments, rollout.Segment{Text: req.UserTurn(task.Turns[k-1]), Tool: true})
			}
			plan := format.Block(f.Think, "You asked: "+e.Question[k][0].Content+" I will call "+strings.Join(bfcl.CallNames(calls), ", ")+".")
			if req.RNG.Float64() >= req.ToolFraction {
				d.Segments = append(d.Segments, rollout.Segment{Text: plan + "Done." + req.EOS})
				continue
			}
			input := "[" + strings.Join(calls, ", ") + "]"
			res := sess.Call(ctx, input)
			if res.Error != "" {
				sess.Close()
				return nil, fmt.Errorf("fcsynth: demonstrations: %s turn %d: %s failed: %s", e.ID, k, input, res.Error)
			}
			d.UsesTool = true
			d.Segments = append(d.Segments, bfcl.CallSegments(f, plan, input, res.Output, req.EOS)...)
		}
		sess.Close()
		demos[i] = d
		req.Report(i+1, len(demos))
	}
	return demos, nil
}
