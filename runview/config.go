package runview

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"sort"

	"gopkg.in/yaml.v3"
)

// Config is one run's resolved config, flattened to dotted keys.
type Config struct {
	Run   string            `json:"run"`
	Keys  map[string]string `json:"keys"`
	Error string            `json:"error,omitempty"` // why there are no keys: no config.yaml yet, or a bad one
}

// Diff is a key whose values differ between runs; a run without the key
// has null.
type Diff struct {
	Key    string    `json:"key"`
	Values []*string `json:"values"`
}

// ReadConfig reads and flattens the run's config.yaml: nested maps become
// dotted keys (grpo.steps), lists and scalars their YAML flow text.
func (run Run) ReadConfig() (map[string]string, error) {
	b, err := run.readFile("config.yaml")
	if err != nil {
		return nil, fmt.Errorf("runview: config: %w", err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("runview: config.yaml: %w", err)
	}
	out := map[string]string{}
	if len(root.Content) > 0 {
		flatten("", root.Content[0], out)
	}
	return out, nil
}

func flatten(prefix string, n *yaml.Node, out map[string]string) {
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if prefix != "" {
				k = prefix + "." + k
			}
			flatten(k, n.Content[i+1], out)
		}
		return
	}
	if n.Kind == yaml.ScalarNode {
		out[prefix] = n.Value
		return
	}
	var v any
	if err := n.Decode(&v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			out[prefix] = string(b)
			return
		}
	}
	out[prefix] = fmt.Sprint(n.Value)
}

// Diffs lists, sorted by key, the keys whose values are not the same in
// every config (a key missing from some counts as differing).
func Diffs(cfgs []map[string]string) []Diff {
	keys := map[string]bool{}
	for _, c := range cfgs {
		for k := range c {
			keys[k] = true
		}
	}
	var out []Diff
	for k := range keys {
		vals := make([]*string, len(cfgs))
		same := true
		for i, c := range cfgs {
			if v, ok := c[k]; ok {
				vals[i] = &v
			}
			if i > 0 && !equal(vals[i], vals[0]) {
				same = false
			}
		}
		if !same {
			out = append(out, Diff{Key: k, Values: vals})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func equal(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func (s *Server) handleConfig(w http.ResponseWriter, r *http.Request) {
	resp := struct {
		Runs []Config `json:"runs"`
		Diff []Diff   `json:"diff"`
	}{Diff: []Diff{}}
	var cfgs []map[string]string
	for _, run := range s.runs {
		c := Config{Run: run.Name, Keys: map[string]string{}}
		keys, err := run.ReadConfig()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			c.Error = "no config.yaml"
		case err != nil:
			c.Error = err.Error()
		default:
			c.Keys = keys
			cfgs = append(cfgs, keys)
		}
		resp.Runs = append(resp.Runs, c)
	}
	if len(cfgs) == len(s.runs) && len(cfgs) > 1 {
		resp.Diff = Diffs(cfgs)
	}
	writeJSON(w, resp)
}
