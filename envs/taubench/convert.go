package taubench

import (
	"fmt"

	"github.com/artist-rl/artist/internal/pyval"
)

// taskFields and actionFields are the fields of upstream's Task and
// Action models, in the order the task JSON files write them. Every
// field is required.
var (
	taskFields   = []string{"annotator", "user_id", "instruction", "actions", "outputs"}
	actionFields = []string{"name", "kwargs"}
)

// ConvertTasks reads an upstream task module (tasks_<split>.py: imports
// and one assignment of a list of Task(...) calls whose actions are
// Action(...) calls) and returns the task list as the JSON value of the
// shared tasks_<split>.json files: each task an object with annotator,
// user_id, instruction, actions ({name, kwargs}) and outputs, in that
// order, kwargs as written.
func ConvertTasks(src string) ([]any, error) {
	list, err := moduleList(src)
	if err != nil {
		return nil, fmt.Errorf("taubench: convert tasks: %w", err)
	}
	out := make([]any, len(list))
	for i, x := range list {
		t, err := modelValue(x, "Task", taskFields)
		if err != nil {
			return nil, fmt.Errorf("taubench: convert tasks: task %d: %w", i, err)
		}
		acts, ok := mustGet(t, "actions").([]any)
		if !ok {
			return nil, fmt.Errorf("taubench: convert tasks: task %d: actions must be a list", i)
		}
		for j, a := range acts {
			if acts[j], err = modelValue(a, "Action", actionFields); err != nil {
				return nil, fmt.Errorf("taubench: convert tasks: task %d action %d: %w", i, j, err)
			}
		}
		if err := plain(t); err != nil {
			return nil, fmt.Errorf("taubench: convert tasks: task %d: %w", i, err)
		}
		out[i] = t
	}
	return out, nil
}

// ConvertRules reads an upstream rules.py (one assignment of a list of
// strings) and returns the list, the JSON value of rules.json.
func ConvertRules(src string) ([]any, error) {
	list, err := moduleList(src)
	if err != nil {
		return nil, fmt.Errorf("taubench: convert rules: %w", err)
	}
	for i, r := range list {
		if _, ok := r.(string); !ok {
			return nil, fmt.Errorf("taubench: convert rules: rule %d is not a string", i)
		}
	}
	return list, nil
}

// ConvertJSON encodes a converted value as the shared files are written:
// Python's json.dumps with indent=1, no trailing newline.
func ConvertJSON(v []any) (string, error) { return pyval.JSONIndent(v, 1) }

// moduleList returns the value of the module's one assignment, which
// must be a list.
func moduleList(src string) ([]any, error) {
	m, err := pyModule(src)
	if err != nil {
		return nil, err
	}
	if m.Len() != 1 {
		return nil, fmt.Errorf("the module must assign exactly one name, it assigns %d", m.Len())
	}
	name := m.Keys()[0]
	v, _ := m.Get(name)
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a list", pyval.Str(name))
	}
	return list, nil
}

// modelValue turns a call of the model class into an object with the
// given fields in order.
func modelValue(x any, class string, fields []string) (*pyval.Dict, error) {
	c, ok := x.(*pyCall)
	if !ok || c.Name != class {
		return nil, fmt.Errorf("want a %s(...) call", class)
	}
	if len(c.Args) > 0 {
		return nil, fmt.Errorf("line %d: %s takes keyword arguments only", c.Line, class)
	}
	for _, k := range c.Kw.Keys() {
		if !contains(fields, k.(string)) {
			return nil, fmt.Errorf("line %d: %s has no field %s (fields: %v)", c.Line, class, k, fields)
		}
	}
	out := pyval.NewDict()
	for _, f := range fields {
		v, ok := c.Kw.Get(f)
		if !ok {
			return nil, fmt.Errorf("line %d: %s is missing the field %s", c.Line, class, f)
		}
		out.Set(f, v)
	}
	return out, nil
}

func mustGet(d *pyval.Dict, k string) any { v, _ := d.Get(k); return v }

// plain checks that a converted value holds no call other than the model
// objects already converted.
func plain(v any) error {
	switch x := v.(type) {
	case *pyCall:
		return fmt.Errorf("line %d: call of %s is not allowed here", x.Line, x.Name)
	case []any:
		for _, e := range x {
			if err := plain(e); err != nil {
				return err
			}
		}
	case *pyval.Dict:
		for _, k := range x.Keys() {
			if err := plain(mustGet(x, pyval.Str(k))); err != nil {
				return err
			}
		}
	}
	return nil
}
