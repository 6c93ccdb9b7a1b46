package trainer

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/artist-rl/artist/envs/family"
)

// TaskConfig selects the task family and holds the config section of
// every registered family. In YAML it is the mapping
//
//	task:
//	  name: NAME        # the family to train on
//	  NAME: {...}       # a family's section, one per registered family
//
// where each section decodes into the family's own config type
// (family.Family.DefaultConfig; its package documents the keys and their
// defaults), strictly: unknown keys are errors that name the key. Only
// the selected family's section is validated and used; the others are
// kept so that the resolved config shows every key.
type TaskConfig struct {
	// Name of the family (family.Names lists the registered ones).
	// Default: the first family registered.
	Name string
	// sections holds each registered family's section by family name.
	// A Config is a value: decoding replaces sections by copies, so
	// configs copied before a decode do not see it.
	sections map[string]any
}

var taskConfigType = reflect.TypeOf(TaskConfig{})

// defaultTaskConfig selects the first registered family, with every
// family's documented defaults.
func defaultTaskConfig() TaskConfig {
	t := TaskConfig{sections: map[string]any{}}
	for i, f := range family.All() {
		if i == 0 {
			t.Name = f.Name()
		}
		t.sections[f.Name()] = f.DefaultConfig()
	}
	return t
}

// Section returns the config section of the family called name (the
// pointer its DefaultConfig returned, decoded), or nil when no such
// family is registered. Callers read it; changing it changes every copy
// of the config.
func (t TaskConfig) Section(name string) any {
	if s, ok := t.sections[name]; ok {
		return s
	}
	if f, err := family.Lookup(name); err == nil {
		return f.DefaultConfig() // a family registered after the config was made
	}
	return nil
}

// MarshalYAML writes name, then every family's section in registration
// order.
func (t TaskConfig) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v any) error {
		var val yaml.Node
		if err := val.Encode(v); err != nil {
			return fmt.Errorf("config: task.%s: %w", key, err)
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &val)
		return nil
	}
	if err := add("name", t.Name); err != nil {
		return nil, err
	}
	for _, f := range family.All() {
		if err := add(f.Name(), t.Section(f.Name())); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// UnmarshalYAML decodes the mapping onto t: name, and each family's
// section onto a copy of the section t holds. checkTask has already
// checked every key.
func (t *TaskConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: task must be a mapping", n.Line)
	}
	sections := map[string]any{}
	for name := range t.sections {
		s, err := copySection(name, t.sections[name])
		if err != nil {
			return err
		}
		sections[name] = s
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i].Value, n.Content[i+1]
		if key == "name" {
			if err := val.Decode(&t.Name); err != nil {
				return err
			}
			continue
		}
		s, ok := sections[key]
		if !ok {
			s = t.Section(key)
			if s == nil {
				return fmt.Errorf("line %d: unknown key %q under task", n.Content[i].Line, key)
			}
			sections[key] = s
		}
		if err := val.Decode(s); err != nil {
			return fmt.Errorf("task.%s: %w", key, err)
		}
	}
	t.sections = sections
	return nil
}

// copySection returns a fresh section of family name holding what s
// holds (through YAML, so no slice or map is shared).
func copySection(name string, s any) (any, error) {
	f, err := family.Lookup(name)
	if err != nil {
		return s, nil // not registered: nothing decodes into it
	}
	b, err := yaml.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("config: task.%s: %w", name, err)
	}
	out := f.DefaultConfig()
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(out); err != nil {
		return nil, fmt.Errorf("config: task.%s: %w", name, err)
	}
	return out, nil
}

// checkTask checks the task mapping: name is a string, every other key
// is a registered family whose section's keys and values are checked
// against its config type.
func checkTask(n *yaml.Node, path string) error {
	keys := append([]string{"name"}, family.Names()...)
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s must be a mapping of keys: %s", n.Line, path, strings.Join(keys, ", "))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		full := path + "." + k.Value
		if k.Value == "name" {
			if err := checkScalar(v, reflect.TypeOf(""), full); err != nil {
				return err
			}
			continue
		}
		f, err := family.Lookup(k.Value)
		if err != nil {
			return fmt.Errorf("line %d: unknown key %q: valid keys under %s are %s", k.Line, full, path, strings.Join(keys, ", "))
		}
		if err := checkNode(v, reflect.TypeOf(f.DefaultConfig()).Elem(), full); err != nil {
			return err
		}
	}
	return nil
}

// validate checks that the family is registered and its section can run.
func (t TaskConfig) validate(warmSteps int) (family.Family, error) {
	f, err := family.Lookup(t.Name)
	if err != nil {
		return nil, fmt.Errorf("config: task.name %q is unknown: the task families are %s", t.Name, strings.Join(family.Names(), ", "))
	}
	if err := f.Validate(t.Section(t.Name)); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if warmSteps > 0 && !f.WritesDemos() {
		return nil, fmt.Errorf("config: warmstart.steps must be 0 for task %s: it writes no demonstrations to warm-start from", t.Name)
	}
	return f, nil
}
