package atlass

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
)

// errVerify refuses a generated function whose examples failed in the
// code tool; errTaken one whose name a stored tool has. Both are the
// writer's to fix, each with its own feedback.
type errVerify struct{ err error }

type errTaken struct {
	name string
	r    Record
}

func (e errVerify) Error() string { return e.err.Error() }

func (e errTaken) Error() string {
	return fmt.Sprintf("a tool named %s is already stored (id %d, %s): %s", e.name, e.r.ID, e.r.State, e.r.Tool.Signature)
}

// Generate runs the tool generator for spec: the writer (the Chat) writes
// a documented Go function, the executor (toollib.Verify in the code tool)
// runs its examples, and each failure, with the failing example or compile
// error, goes back to the writer, as does a name already stored, for at
// most MaxAttempts attempts; the database's Add then verifies and stores
// the function that passed. The accepted tool is stored Pending with the
// pipeline's provenance; with AutoApprove it is approved at once and the
// log's note says so. The generated code runs only inside verification.
func (p *Pipeline) Generate(ctx context.Context, task envs.Task, spec ToolSpec) (Record, PhaseLog, error) {
	log := PhaseLog{Phase: "generate"}
	msgs := generateMessages(task, spec)
	prov := Provenance{Task: taskRef(task), Run: p.RunID, Source: "atlass"}
	var id int64
	err := ask(ctx, p.Chat, &log, msgs, p.maxAttempts(), func(reply string) error {
		t, err := toollib.ParseTool(goSource(reply))
		if err != nil {
			return err
		}
		if r, err := p.DB.ByName(ctx, t.Name); err == nil {
			return errTaken{t.Name, r}
		} else if !errors.Is(err, toollib.ErrNotFound) {
			return fatal{fmt.Errorf("look up %s: %w", t.Name, err)}
		}
		if err := toollib.Verify(ctx, p.Code, t); err != nil {
			return errVerify{err}
		}
		if id, err = p.DB.Add(ctx, p.Code, t, prov, Pending); err != nil {
			return fatal{err}
		}
		return nil
	}, generatorFeedback)
	if err != nil {
		return Record{}, log, fmt.Errorf("atlass: generate %s: %w", spec.Name, err)
	}
	if p.AutoApprove {
		if err := p.DB.Approve(ctx, id, p.approver()); err != nil {
			return Record{}, log, fmt.Errorf("atlass: auto-approve tool %d: %w", id, err)
		}
		log.Note = fmt.Sprintf("tool %d auto-approved by %q (-auto-approve): it was not reviewed by a person", id, p.approver())
	}
	rec, err := p.DB.Get(ctx, id)
	if err != nil {
		return Record{}, log, fmt.Errorf("atlass: generate %s: read back tool %d: %w", spec.Name, id, err)
	}
	log.Output = map[string]any{"id": rec.ID, "name": rec.Tool.Name, "state": rec.State, "source": rec.Tool.Source}
	return rec, log, nil
}

// generatorFeedback answers a refused function: one whose examples
// failed, one whose name is taken, or a source that is not one documented
// function.
func generatorFeedback(err error) string {
	switch err.(type) {
	case errVerify:
		return fmt.Sprintf(generatorVerifyFeedback, err)
	case errTaken:
		return fmt.Sprintf(generatorTakenFeedback, err)
	}
	return fmt.Sprintf(generatorParseFeedback, err)
}

// goSource returns the content of the first fenced code block of reply,
// or reply itself when it has none.
func goSource(reply string) string {
	start := strings.Index(reply, "```")
	if start < 0 {
		return strings.TrimSpace(reply)
	}
	rest := reply[start+3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[nl+1:] // the info string ("go")
	}
	if end := strings.Index(rest, "```"); end >= 0 {
		rest = rest[:end]
	}
	return strings.TrimSpace(rest)
}

// taskRef is how a stored tool's provenance names its task: the id, or
// the text when the task has none.
func taskRef(t envs.Task) string {
	if t.ID != "" {
		return t.ID
	}
	return t.Prompt
}
