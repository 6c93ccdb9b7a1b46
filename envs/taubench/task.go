package taubench

import (
	"fmt"
	"os"

	"github.com/artist-rl/artist/internal/pyval"
)

// Task is one tau-bench task: the user's instruction, the gold actions
// whose final database is the goal, and the strings the agent must say.
type Task struct {
	Annotator   string
	UserID      string
	Instruction string
	Actions     []Action
	Outputs     []string
}

// LoadTasks reads a tasks_<split>.json file: a JSON list of objects with
// annotator, user_id, instruction, actions ({name, kwargs}) and outputs.
// Kwargs keep their key order and number types.
func LoadTasks(path string) ([]Task, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("taubench: load tasks: %w", err)
	}
	tasks, err := DecodeTasks(raw)
	if err != nil {
		return nil, fmt.Errorf("taubench: load tasks %s: %w", path, err)
	}
	return tasks, nil
}

// DecodeTasks parses the JSON of a task file.
func DecodeTasks(raw []byte) ([]Task, error) {
	v, err := pyval.DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("taubench: a task file holds a JSON list of tasks, got %s", pyval.TypeName(v))
	}
	tasks := make([]Task, len(list))
	for i, x := range list {
		d, ok := x.(*pyval.Dict)
		if !ok {
			return nil, fmt.Errorf("taubench: task %d: want an object, got %s", i, pyval.TypeName(x))
		}
		t := Task{Annotator: d.Str("annotator"), UserID: d.Str("user_id"), Instruction: d.Str("instruction")}
		if t.Actions, err = decodeActions(d.List("actions")); err != nil {
			return nil, fmt.Errorf("taubench: task %d: %w", i, err)
		}
		for _, o := range d.List("outputs") {
			s, ok := o.(string)
			if !ok {
				return nil, fmt.Errorf("taubench: task %d: outputs must be strings, got %s", i, pyval.TypeName(o))
			}
			t.Outputs = append(t.Outputs, s)
		}
		tasks[i] = t
	}
	return tasks, nil
}

func decodeActions(list []any) ([]Action, error) {
	out := make([]Action, 0, len(list))
	for j, x := range list {
		d, ok := x.(*pyval.Dict)
		if !ok {
			return nil, fmt.Errorf("action %d: want an object with name and kwargs, got %s", j, pyval.TypeName(x))
		}
		name, ok := d.Get("name")
		if s, isStr := name.(string); !ok || !isStr || s == "" {
			return nil, fmt.Errorf("action %d: name must be a non-empty string", j)
		}
		kw := d.Dict("kwargs")
		if kw == nil {
			kw = pyval.NewDict()
		}
		out = append(out, Action{Name: d.Str("name"), Kwargs: kw})
	}
	return out, nil
}

// Value returns the task as its JSON value, keys in the task files' order
// (annotator, user_id, instruction, actions, outputs).
func (t Task) Value() *pyval.Dict {
	acts := make([]any, len(t.Actions))
	for i, a := range t.Actions {
		acts[i] = a.Value()
	}
	outs := make([]any, len(t.Outputs))
	for i, o := range t.Outputs {
		outs[i] = o
	}
	return pyval.NewDict("annotator", t.Annotator, "user_id", t.UserID, "instruction", t.Instruction,
		"actions", acts, "outputs", outs)
}

// Value returns the action as {"name": ..., "kwargs": ...}.
func (a Action) Value() *pyval.Dict {
	kw := a.Kwargs
	if kw == nil {
		kw = pyval.NewDict()
	}
	return pyval.NewDict("name", a.Name, "kwargs", kw)
}
