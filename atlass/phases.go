package atlass

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
)

// Analysis is the task analyzer's output: the task's subtasks, in order.
type Analysis struct {
	Subtasks []string `json:"subtasks"`
}

// maxSubtasks bounds an analysis; a longer one is refused as rambling.
const maxSubtasks = 12

func (a Analysis) validate() error {
	switch {
	case len(a.Subtasks) == 0:
		return errors.New(`"subtasks" is empty: list at least one subtask`)
	case len(a.Subtasks) > maxSubtasks:
		return fmt.Errorf(`"subtasks" has %d entries: list at most %d`, len(a.Subtasks), maxSubtasks)
	}
	for i, s := range a.Subtasks {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("subtask %d is empty", i+1)
		}
	}
	return nil
}

// ToolSpec is a tool the tool master asks for.
type ToolSpec struct {
	Name        string `json:"name"`        // a Go identifier
	Description string `json:"description"` // what it computes from which inputs
}

// Plan is the tool master's output.
type Plan struct {
	NeedsTools bool       `json:"needs_tools"`
	Tools      []ToolSpec `json:"tools"`
}

func (p Plan) validate() error {
	switch {
	case p.NeedsTools && len(p.Tools) == 0:
		return errors.New(`"needs_tools" is true but "tools" is empty: list the tools, or set "needs_tools" to false`)
	case !p.NeedsTools && len(p.Tools) > 0:
		return errors.New(`"needs_tools" is false but "tools" lists tools: set it to true, or give "tools": []`)
	}
	seen := map[string]bool{}
	for i, t := range p.Tools {
		switch {
		case !token.IsIdentifier(t.Name) || t.Name == "_" || t.Name == "main" || t.Name == "init":
			return fmt.Errorf("tool %d: name %q is not a usable Go function name: use an identifier such as \"digitSum\"", i+1, t.Name)
		case seen[t.Name]:
			return fmt.Errorf("tool %d: name %q is listed twice", i+1, t.Name)
		case strings.TrimSpace(t.Description) == "":
			return fmt.Errorf("tool %s has an empty description", t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}

// Match is the selector's decision for one needed tool: the id of the
// stored tool that does its job, or nil when none does.
type Match struct {
	Needed   string `json:"needed"`
	Existing *int64 `json:"existing"`
	Why      string `json:"why"`
}

// Need is a needed tool with the stored tools offered to the selector.
type Need struct {
	ToolSpec
	Candidates []Record
}

// validateMatches checks that matches decide every need once, each by a
// candidate offered for it.
func validateMatches(matches []Match, needs []Need) error {
	byName := map[string]Need{}
	for _, n := range needs {
		byName[n.Name] = n
	}
	done := map[string]bool{}
	for i, m := range matches {
		n, ok := byName[m.Needed]
		switch {
		case !ok:
			return fmt.Errorf("match %d: %q is not a needed tool; the needed tools are %s", i+1, m.Needed, needNames(needs))
		case done[m.Needed]:
			return fmt.Errorf("match %d: %q is decided twice", i+1, m.Needed)
		case strings.TrimSpace(m.Why) == "":
			return fmt.Errorf("match %d (%s): \"why\" is empty", i+1, m.Needed)
		case m.Existing != nil && !slices.ContainsFunc(n.Candidates, func(r Record) bool { return r.ID == *m.Existing }):
			return fmt.Errorf("match %d (%s): id %d is not one of its candidates; choose among them or give null", i+1, m.Needed, *m.Existing)
		}
		done[m.Needed] = true
	}
	for _, n := range needs {
		if !done[n.Name] {
			return fmt.Errorf("needed tool %q has no match: give one entry for each of %s", n.Name, needNames(needs))
		}
	}
	return nil
}

func needNames(needs []Need) string {
	names := make([]string, len(needs))
	for i, n := range needs {
		names[i] = n.Name
	}
	return strings.Join(names, ", ")
}

// Analyze runs the task analyzer.
func (p *Pipeline) Analyze(ctx context.Context, task envs.Task) (Analysis, PhaseLog, error) {
	log := PhaseLog{Phase: "analyze"}
	msgs := analyzeMessages(task)
	var a Analysis
	err := ask(ctx, p.Chat, &log, msgs, p.tries(), func(reply string) (err error) {
		a, err = parseAnalysis(reply)
		return err
	}, jsonFeedback)
	if err != nil {
		return Analysis{}, log, fmt.Errorf("atlass: analyze: %w", err)
	}
	log.Output = a
	return a, log, nil
}

// Plan runs the tool master on the task and its analysis.
func (p *Pipeline) Plan(ctx context.Context, task envs.Task, a Analysis) (Plan, PhaseLog, error) {
	log := PhaseLog{Phase: "plan"}
	msgs := planMessages(task, a)
	var plan Plan
	err := ask(ctx, p.Chat, &log, msgs, p.tries(), func(reply string) (err error) {
		plan, err = parsePlan(reply)
		return err
	}, jsonFeedback)
	if err != nil {
		return Plan{}, log, fmt.Errorf("atlass: plan: %w", err)
	}
	log.Output = plan
	return plan, log, nil
}

// Needs searches the database for the candidates of each spec: up to
// Candidates approved or pending tools ranked for its name and
// description. Rejected tools are never offered.
func (p *Pipeline) Needs(ctx context.Context, specs []ToolSpec) ([]Need, error) {
	needs := make([]Need, len(specs))
	for i, s := range specs {
		recs, err := p.DB.Search(ctx, s.Name+" "+s.Description, p.candidates(), Approved, Pending)
		if err != nil {
			return nil, fmt.Errorf("atlass: search the tool database for %s: %w", s.Name, err)
		}
		needs[i] = Need{ToolSpec: s, Candidates: recs}
	}
	return needs, nil
}

// Select runs the tool selector on needs (see Needs). When no need has a
// candidate it decides without asking: nothing matches, and the log says
// so.
func (p *Pipeline) Select(ctx context.Context, task envs.Task, needs []Need) ([]Match, PhaseLog, error) {
	log := PhaseLog{Phase: "select"}
	if !slices.ContainsFunc(needs, func(n Need) bool { return len(n.Candidates) > 0 }) {
		matches := make([]Match, len(needs))
		for i, n := range needs {
			matches[i] = Match{Needed: n.Name, Why: "the tool database holds no candidate"}
		}
		log.Note, log.Output = "skipped: the tool database holds no candidate for any needed tool", matches
		return matches, log, nil
	}
	msgs := selectMessages(task, needs)
	var matches []Match
	err := ask(ctx, p.Chat, &log, msgs, p.tries(), func(reply string) (err error) {
		matches, err = parseMatches(reply, needs)
		return err
	}, jsonFeedback)
	if err != nil {
		return nil, log, fmt.Errorf("atlass: select: %w", err)
	}
	log.Output = matches
	return matches, log, nil
}

// The first conversations of the phases: what Analyze, Plan, Select and
// Generate send before any refusal is fed back.

func analyzeMessages(task envs.Task) []openai.ChatMessage {
	return []openai.ChatMessage{message("system", analyzerSystem), message("user", render(analyzerUser, map[string]any{"Task": task.Prompt}))}
}

func planMessages(task envs.Task, a Analysis) []openai.ChatMessage {
	user := render(masterUser, map[string]any{"Task": task.Prompt, "Subtasks": a.Subtasks})
	return []openai.ChatMessage{message("system", masterSystem), message("user", user)}
}

func selectMessages(task envs.Task, needs []Need) []openai.ChatMessage {
	user := render(selectorUser, map[string]any{"Task": task.Prompt, "Needs": needs})
	return []openai.ChatMessage{message("system", selectorSystem), message("user", user)}
}

func generateMessages(task envs.Task, spec ToolSpec) []openai.ChatMessage {
	user := render(generatorUser, map[string]any{"Name": spec.Name, "Description": spec.Description, "Task": task.Prompt})
	return []openai.ChatMessage{message("system", generatorSystem), message("user", user)}
}

// The validators of the JSON phases: a reply is accepted when it decodes
// and validates.

func parseAnalysis(reply string) (Analysis, error) {
	var a Analysis
	if err := decodeReply(reply, &a, "subtasks"); err != nil {
		return Analysis{}, err
	}
	return a, a.validate()
}

func parsePlan(reply string) (Plan, error) {
	var plan Plan
	if err := decodeReply(reply, &plan, "needs_tools", "tools"); err != nil {
		return Plan{}, err
	}
	return plan, plan.validate()
}

func parseMatches(reply string, needs []Need) ([]Match, error) {
	var sel struct {
		Matches []Match `json:"matches"`
	}
	if err := decodeReply(reply, &sel, "matches"); err != nil {
		return nil, err
	}
	return sel.Matches, validateMatches(sel.Matches, needs)
}
