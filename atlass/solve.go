package atlass

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/reward/mathgrade"
	"github.com/artist-rl/artist/rollout"
)

// Solver runs the task solver: the model on task in the pause-at-tool-call
// loop over tool, the code tool with the source of tools (all approved)
// before every snippet, so its instructions should list them (see
// toollib.Listing). ChatSolver runs a served model; EngineSolver runs the
// policy on the rollout engine, inside training.
type Solver interface {
	// Prompt is the text the model is given for task with tools, for the
	// transcript: a chat model's system message (the task follows as the
	// user's), or a text model's whole prompt.
	Prompt(task envs.Task, tools []toollib.Tool) string
	Solve(ctx context.Context, task envs.Task, tools []toollib.Tool, tool envs.Tool) (*rollout.Trajectory, error)
}

// Solution is what the task solver did.
type Solution struct {
	Prompt   string              `json:"prompt"`  // see Solver.Prompt
	Tools    []int64             `json:"tools"`   // the approved tools in its prelude
	Listing  string              `json:"listing"` // their listing, as the solver's instructions hold it
	Traj     *rollout.Trajectory `json:"trajectory"`
	Answer   string              `json:"answer"`
	Answered bool                `json:"answered"` // the response holds a final answer
}

// ErrNotApproved is returned by Solve for a tool that is not approved.
var ErrNotApproved = errors.New("atlass: tool not approved")

// Solve runs the task solver with the stored tools ids, which must all be
// approved: it reads them again from the database and refuses, before any
// request, a tool in another state (ErrNotApproved, with the command that
// approves it). Their source is the prelude of every snippet and their
// listing part of the instructions (a snippet that declares a function of
// the same name keeps its own); each that a call of the solver names is
// marked used.
func (p *Pipeline) Solve(ctx context.Context, task envs.Task, ids []int64) (Solution, error) {
	tools := make([]toollib.Tool, len(ids))
	for i, id := range ids {
		r, err := p.DB.Get(ctx, id)
		if err != nil {
			return Solution{}, fmt.Errorf("atlass: solve: tool %d: %w", id, err)
		}
		if r.State != Approved {
			return Solution{}, fmt.Errorf("%w: tool %d (%s) is %s: %s", ErrNotApproved, id, r.Tool.Name, r.State, approveHint([]int64{id}))
		}
		tools[i] = r.Tool
	}
	traj, err := p.Solver.Solve(ctx, task, tools, &preludeTool{inner: p.Code, tools: tools})
	if err != nil {
		return Solution{}, err
	}
	if used := called(traj, ids, tools); len(used) > 0 {
		if err := p.DB.MarkUsed(ctx, used...); err != nil {
			return Solution{}, fmt.Errorf("atlass: solve: mark tools used: %w", err)
		}
	}
	answer, ok := mathgrade.Extract(traj.Response, p.format())
	return Solution{Prompt: p.Solver.Prompt(task, tools), Tools: ids, Listing: toollib.Listing(tools), Traj: traj, Answer: answer, Answered: ok}, nil
}

// approveHint is the command that approves ids.
func approveHint(ids []int64) string {
	cmds := make([]string, len(ids))
	for i, id := range ids {
		cmds[i] = "artist tools approve " + strconv.FormatInt(id, 10)
	}
	return "awaiting approval: " + strings.Join(cmds, "; ")
}
