package atlass

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
)

// PhaseDemo is a demonstration of one phase: the first conversation the
// phase has on a task, as Analyze, Plan, Select or Generate send it, and
// the reply it should get.
type PhaseDemo struct {
	Task     envs.Task            `json:"task"`
	Phase    string               `json:"phase"` // analyze, plan, select or generate
	Messages []openai.ChatMessage `json:"messages"`
	Reply    string               `json:"reply"`
}

// Teacher writes phase demonstrations from a family's ground truth
// (family.PhaseTeacher) over the database and code tool of Pipeline. It
// verifies each distinct generated source once; it is not safe for
// concurrent use.
type Teacher struct {
	Pipeline *Pipeline // DB, Code and Candidates are used
	verified map[string]error
}

// Demonstrations returns the phase demonstrations of task, in phase
// order: the analyzer's reply is truth's subtasks; the tool master's, its
// tools; the selector's (when some needed tool has candidates in the
// database now, as Select would be asked) the candidate whose name is
// one of the tool's Stored names or its own Name, or null; and the
// generator's, the tool's Source, for each tool with no match. A
// generator demonstration is left out when the database already holds a
// tool of its name that the selector was not offered, since Generate
// would refuse it. Every reply passes its phase's validator and every
// generated source is verified in the code tool, so a truth the phases
// would refuse is an error naming the phase and the task.
func (t *Teacher) Demonstrations(ctx context.Context, task envs.Task, truth family.PhaseTruth) ([]PhaseDemo, error) {
	p := t.Pipeline
	if err := p.check("DB", "Code"); err != nil {
		return nil, err
	}
	fail := func(phase string, err error) error {
		return fmt.Errorf("atlass: %s demonstration of task %s: %w", phase, taskRef(task), err)
	}
	a := Analysis{Subtasks: truth.Subtasks}
	plan := Plan{NeedsTools: len(truth.Tools) > 0, Tools: []ToolSpec{}}
	for _, nt := range truth.Tools {
		plan.Tools = append(plan.Tools, ToolSpec{Name: nt.Name, Description: nt.Description})
	}
	demos := []PhaseDemo{
		{Task: task, Phase: "analyze", Messages: analyzeMessages(task), Reply: jsonReply(a)},
		{Task: task, Phase: "plan", Messages: planMessages(task, a), Reply: jsonReply(plan)},
	}
	if _, err := parseAnalysis(demos[0].Reply); err != nil {
		return nil, fail("analyze", err)
	}
	if _, err := parsePlan(demos[1].Reply); err != nil {
		return nil, fail("plan", err)
	}
	if len(plan.Tools) == 0 {
		return demos, nil
	}
	needs, err := p.Needs(ctx, plan.Tools)
	if err != nil {
		return nil, err
	}
	matches := chooseMatches(needs, truth.Tools)
	if slices.ContainsFunc(needs, func(n Need) bool { return len(n.Candidates) > 0 }) {
		d := PhaseDemo{Task: task, Phase: "select", Messages: selectMessages(task, needs), Reply: jsonReply(map[string][]Match{"matches": matches})}
		if _, err := parseMatches(d.Reply, needs); err != nil {
			return nil, fail("select", err)
		}
		demos = append(demos, d)
	}
	for i, nt := range truth.Tools {
		if matches[i].Existing != nil {
			continue
		}
		if _, err := p.DB.ByName(ctx, nt.Name); err == nil {
			continue // stored, but not offered: Generate would refuse the name
		} else if !errors.Is(err, toollib.ErrNotFound) {
			return nil, fail("generate", err)
		}
		if err := t.verify(ctx, nt.Source); err != nil {
			return nil, fail("generate", fmt.Errorf("the source of %s: %w", nt.Name, err))
		}
		demos = append(demos, PhaseDemo{Task: task, Phase: "generate", Messages: generateMessages(task, plan.Tools[i]),
			Reply: "```go\n" + strings.TrimSpace(nt.Source) + "\n```"})
	}
	return demos, nil
}

// chooseMatches is the selector's correct reply on needs: for each tool,
// its first candidate named in Stored or by its own name.
func chooseMatches(needs []Need, tools []family.NeededTool) []Match {
	matches := make([]Match, len(needs))
	for i, n := range needs {
		matches[i] = Match{Needed: n.Name, Why: "No candidate computes what " + n.Name + " computes."}
		for _, c := range n.Candidates {
			if c.Tool.Name == n.Name || slices.Contains(tools[i].Stored, c.Tool.Name) {
				id := c.ID
				matches[i].Existing, matches[i].Why = &id, c.Tool.Name+" computes what "+n.Name+" computes."
				break
			}
		}
	}
	return matches
}

// verify checks once per source that it parses as one documented
// function whose examples hold in the code tool.
func (t *Teacher) verify(ctx context.Context, src string) error {
	if err, ok := t.verified[src]; ok {
		return err
	}
	tool, err := toollib.ParseTool(src)
	if err == nil {
		err = toollib.Verify(ctx, t.Pipeline.Code, tool)
	}
	if ctx.Err() != nil {
		return ctx.Err() // not the source's fault: do not remember it
	}
	if t.verified == nil {
		t.verified = map[string]error{}
	}
	t.verified[src] = err
	return err
}

// jsonReply is v as a compact JSON object, as a reply writes it.
func jsonReply(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("atlass: encode a reply: " + err.Error()) // the types are fixed
	}
	return strings.TrimSpace(b.String())
}
