package atlass

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/rollout/format"
)

// Pipeline runs the ATLASS phases on tasks. Set Chat, Solver, DB and
// Code; the other fields have defaults at their zero values. A Pipeline
// runs one task at a time per goroutine and keeps no state between tasks
// but what the database stores.
type Pipeline struct {
	Chat   Chat      // the analyzer, tool master, selector and tool writer
	Solver Solver    // the task solver
	DB     ToolDB    // retrieved tools, and where generated ones are stored
	Code   envs.Tool // the code tool: the executor of generated tools and the solver's snippets

	// Retries is how many times a JSON phase is asked again after a
	// refused reply (default 2; negative: never).
	Retries int
	// MaxAttempts bounds the functions written per generated tool
	// (default 3).
	MaxAttempts int
	// Candidates is how many stored tools the selector sees per needed
	// tool (default 5).
	Candidates int
	// AutoApprove approves each generated tool once it is stored, for
	// unattended runs; the transcript says so. Approver is recorded as
	// the decider (default "atlass -auto-approve").
	AutoApprove bool
	Approver    string
	// RunID is recorded as the provenance run of generated tools (the
	// command gives its output folder).
	RunID string
	// Format gives the answer tags (default format.DefaultFormat()).
	Format format.Format
}

func (p *Pipeline) tries() int {
	switch {
	case p.Retries < 0:
		return 1
	case p.Retries == 0:
		return 3
	}
	return p.Retries + 1
}

func (p *Pipeline) maxAttempts() int      { return cmp.Or(p.MaxAttempts, 3) }
func (p *Pipeline) candidates() int       { return cmp.Or(p.Candidates, 5) }
func (p *Pipeline) approver() string      { return cmp.Or(p.Approver, "atlass -auto-approve") }
func (p *Pipeline) format() format.Format { return cmp.Or(p.Format, format.DefaultFormat()) }

// Status is how a task ended.
type Status string

const (
	Solved           Status = "solved"            // the solver wrote an answer
	Unanswered       Status = "unanswered"        // the solver ran but wrote no answer
	AwaitingApproval Status = "awaiting_approval" // a needed tool is pending; nothing ran
	Failed           Status = "failed"            // a phase gave up (see Message)
)

// Provided is how one needed tool was provided.
type Provided struct {
	Needed ToolSpec `json:"needed"`
	ID     int64    `json:"id"`
	Name   string   `json:"name"`  // the stored tool's name
	How    string   `json:"how"`   // "selected" or "generated"
	State  State    `json:"state"` // when the pipeline decided whether to solve
}

// Transcript is the record of one task: every phase's requests and
// replies, the tools provided, and how it ended.
type Transcript struct {
	Task     envs.Task  `json:"task"`
	Status   Status     `json:"status"`
	Message  string     `json:"message,omitempty"` // for people: why it failed, or the command that approves
	Answer   string     `json:"answer,omitempty"`
	Phases   []PhaseLog `json:"phases"`
	Tools    []Provided `json:"tools,omitempty"`
	Solution *Solution  `json:"solution,omitempty"`
}

// Run takes task through every phase: analyze, plan, and when tools are
// needed select and generate the missing ones; then, when every needed
// tool is approved, solve. A task whose tools are not all approved ends
// AwaitingApproval without running the solver, its Message the command
// that approves them. A phase that gives up (ErrGaveUp) ends the task
// Failed with a nil error; an error is returned only when the server, the
// database or ctx failed, with the transcript so far.
func (p *Pipeline) Run(ctx context.Context, task envs.Task) (*Transcript, error) {
	tr := &Transcript{Task: task, Phases: []PhaseLog{}}
	err := p.check()
	if err == nil {
		err = p.run(ctx, tr)
	}
	if errors.Is(err, ErrGaveUp) {
		tr.Status, tr.Message = Failed, err.Error()
		return tr, nil
	}
	if err != nil {
		tr.Status, tr.Message = Failed, err.Error()
	}
	return tr, err
}

// check names the first of the required fields (all four when none are
// named) left unset.
func (p *Pipeline) check(fields ...string) error {
	if len(fields) == 0 {
		fields = []string{"Chat", "Solver", "DB", "Code"}
	}
	set := map[string]bool{"Chat": p.Chat != nil, "Solver": p.Solver != nil, "DB": p.DB != nil, "Code": p.Code != nil}
	for _, f := range fields {
		if !set[f] {
			return fmt.Errorf("atlass: Pipeline.%s is nil: set it before running the phases", f)
		}
	}
	return nil
}

// Prepare runs the phases before the solver on task: analyze, plan, and
// when tools are needed select and generate the missing ones. The
// transcript's Tools hold what was provided, in the states the pipeline
// saw; its Status is Failed when a phase gave up (with a nil error, as in
// Run) and empty otherwise, for the caller to solve with ApprovedTools. An
// error is returned only when the model, the database or ctx failed. The
// Solver is not needed.
func (p *Pipeline) Prepare(ctx context.Context, task envs.Task) (*Transcript, error) {
	tr := &Transcript{Task: task, Phases: []PhaseLog{}}
	err := p.check("Chat", "DB", "Code")
	if err == nil {
		err = p.prepare(ctx, tr)
	}
	if err != nil {
		tr.Status, tr.Message = Failed, err.Error()
	}
	if errors.Is(err, ErrGaveUp) {
		return tr, nil
	}
	return tr, err
}

func (p *Pipeline) prepare(ctx context.Context, tr *Transcript) error {
	a, log, err := p.Analyze(ctx, tr.Task)
	if tr.Phases = append(tr.Phases, log); err != nil {
		return err
	}
	plan, log, err := p.Plan(ctx, tr.Task, a)
	if tr.Phases = append(tr.Phases, log); err != nil {
		return err
	}
	return p.provide(ctx, tr, plan.Tools)
}

// ApprovedTools reads the tools of tr again and returns those approved
// now, each once, in the order provided: what a solver may run. The
// others (pending, or rejected since) are left out.
func (p *Pipeline) ApprovedTools(ctx context.Context, tr *Transcript) ([]int64, []toollib.Tool, error) {
	var ids []int64
	var tools []toollib.Tool
	for _, t := range tr.Tools {
		if slices.Contains(ids, t.ID) {
			continue
		}
		r, err := p.DB.Get(ctx, t.ID)
		if err != nil {
			return nil, nil, fmt.Errorf("atlass: read provided tool %d: %w", t.ID, err)
		}
		if r.State == Approved {
			ids, tools = append(ids, t.ID), append(tools, r.Tool)
		}
	}
	return ids, tools, nil
}

func (p *Pipeline) run(ctx context.Context, tr *Transcript) error {
	if err := p.prepare(ctx, tr); err != nil {
		return err
	}
	var ids, pending []int64
	for _, t := range tr.Tools {
		switch {
		case slices.Contains(ids, t.ID): // selected for two needs
		case t.State == Rejected: // since the selector saw it
			return fmt.Errorf("%w: tool %d (%s) was rejected while the task ran", ErrGaveUp, t.ID, t.Name)
		case t.State != Approved:
			ids, pending = append(ids, t.ID), append(pending, t.ID)
		default:
			ids = append(ids, t.ID)
		}
	}
	if len(pending) > 0 {
		tr.Status, tr.Message = AwaitingApproval, approveHint(pending)
		return nil
	}
	sol, err := p.Solve(ctx, tr.Task, ids)
	if err != nil {
		tr.Phases = append(tr.Phases, PhaseLog{Phase: "solve", Error: err.Error()})
		return err
	}
	tr.Phases = append(tr.Phases, PhaseLog{Phase: "solve", Output: map[string]any{"stop": sol.Traj.Stop, "calls": len(sol.Traj.Calls), "answer": sol.Answer}})
	tr.Solution, tr.Answer, tr.Status = &sol, sol.Answer, Solved
	if !sol.Answered {
		tr.Status, tr.Message = Unanswered, fmt.Sprintf("the solver wrote no final answer (stop: %s)", sol.Traj.Stop)
	}
	return nil
}

// provide selects or generates each needed tool and records it.
func (p *Pipeline) provide(ctx context.Context, tr *Transcript, specs []ToolSpec) error {
	if len(specs) == 0 {
		return nil
	}
	needs, err := p.Needs(ctx, specs)
	if err != nil {
		return err
	}
	matches, log, err := p.Select(ctx, tr.Task, needs)
	if tr.Phases = append(tr.Phases, log); err != nil {
		return err
	}
	byName := map[string]Match{}
	for _, m := range matches {
		byName[m.Needed] = m
	}
	for _, s := range specs {
		var rec Record
		how := "selected"
		if m := byName[s.Name]; m.Existing != nil {
			if rec, err = p.DB.Get(ctx, *m.Existing); err != nil {
				return fmt.Errorf("atlass: read selected tool %d: %w", *m.Existing, err)
			}
		} else {
			how = "generated"
			rec, log, err = p.Generate(ctx, tr.Task, s)
			if tr.Phases = append(tr.Phases, log); err != nil {
				return err
			}
		}
		tr.Tools = append(tr.Tools, Provided{Needed: s, ID: rec.ID, Name: rec.Tool.Name, How: how, State: rec.State})
	}
	return nil
}

// File is the name of the transcript's file in an output folder: the
// task's id with characters other than letters, digits, '.', '_' and '-'
// replaced and leading dots dropped ("task" when nothing is left), and
// ".json".
func (tr *Transcript) File() string {
	id := cmp.Or(tr.Task.ID, "task")
	clean := strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, id)
	return cmp.Or(strings.TrimLeft(clean, "."), "task") + ".json"
}

// Save writes the transcript as indented JSON to dir/File(), atomically,
// and returns the path.
func (tr *Transcript) Save(dir string) (string, error) {
	path := filepath.Join(dir, tr.File())
	if err := tr.WriteFile(path); err != nil {
		return "", err
	}
	return path, nil
}

// WriteFile writes the transcript as indented JSON to path, atomically.
func (tr *Transcript) WriteFile(path string) error {
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(tr)
	})
	if err != nil {
		return fmt.Errorf("atlass: save transcript: %w", err)
	}
	return nil
}
