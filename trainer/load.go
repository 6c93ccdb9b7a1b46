package trainer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Load reads a YAML config file on top of DefaultConfig, applies each
// "key.path=value" override in sets, and validates the result. Unknown keys
// and values of the wrong type are errors that name the key.
func Load(path string, sets []string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return Parse(data, path, sets)
}

// Parse is Load on bytes; name labels errors.
func Parse(data []byte, name string, sets []string) (Config, error) {
	cfg := DefaultConfig()
	if hasKey(data, "reward", "weights") {
		cfg.Reward.Weights = nil // a file's weights replace the default set
	}
	if err := decodeStrict(data, name, &cfg); err != nil {
		return Config{}, err
	}
	for _, s := range sets {
		if err := applySet(&cfg, s); err != nil {
			return Config{}, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// applySet decodes one "a.b.c=value" override; value is read as YAML, so
// numbers, booleans and lists ("[mul,div]") work.
func applySet(cfg *Config, set string) error {
	key, val, ok := strings.Cut(set, "=")
	if !ok || key == "" {
		return fmt.Errorf("config: -set %q: write key=value, e.g. -set grpo.steps=50", set)
	}
	var v any
	if err := yaml.Unmarshal([]byte(val), &v); err != nil {
		return fmt.Errorf("config: -set %s: value %q is not valid YAML: %v", key, val, err)
	}
	parts := strings.Split(key, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		v = map[string]any{parts[i]: v}
	}
	doc, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("config: -set %s: %w", key, err)
	}
	if err := decodeStrict(doc, "-set "+set, cfg); err != nil {
		// The document is one made from the flag: its line numbers say
		// nothing to the user.
		return errors.New(yamlLine.ReplaceAllString(err.Error(), ""))
	}
	return nil
}

// yamlLine matches the "line N: " that YAML errors start with.
var yamlLine = regexp.MustCompile(`line [0-9]+: `)

// decodeStrict checks every key and scalar of data against the fields of
// cfg, then decodes data on top of cfg.
func decodeStrict(data []byte, name string, cfg *Config) error {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return fmt.Errorf("config: %s: %w", name, err)
	}
	if len(root.Content) == 0 { // empty document
		return nil
	}
	if err := checkNode(root.Content[0], reflect.TypeOf(*cfg), ""); err != nil {
		return fmt.Errorf("config: %s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil {
		return fmt.Errorf("config: %s: %w", name, err)
	}
	return nil
}

// hasKey reports whether the YAML document data holds a mapping key at
// path (an unreadable document holds none; decodeStrict reports it).
func hasKey(data []byte, path ...string) bool {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return false
	}
	n := root.Content[0]
	for _, key := range path {
		var next *yaml.Node
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == key {
					next = n.Content[i+1]
				}
			}
		}
		if next == nil {
			return false
		}
		n = next
	}
	return true
}

var durationType = reflect.TypeOf(time.Duration(0))

// checkNode walks a YAML node alongside the Go type it decodes into.
func checkNode(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	switch {
	case t == taskConfigType:
		return checkTask(n, path)
	case t == durationType:
		if _, err := time.ParseDuration(n.Value); n.Kind != yaml.ScalarNode || err != nil {
			return fmt.Errorf("line %d: %s: %q is not a duration: write e.g. 2s or 500ms", n.Line, path, n.Value)
		}
		return nil
	case t.Kind() == reflect.Struct:
		return checkStruct(n, t, path)
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: %s must be a mapping of name: value", n.Line, path)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkNode(n.Content[i+1], t.Elem(), path+"."+n.Content[i].Value); err != nil {
				return err
			}
		}
		return nil
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fmt.Errorf("line %d: %s must be a list, e.g. [a, b]", n.Line, path)
		}
		for i, c := range n.Content {
			if err := checkNode(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return checkScalar(n, t, path)
}

func checkStruct(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s must be a mapping of keys: %s", n.Line, orRoot(path), strings.Join(yamlKeys(t), ", "))
	}
	fields := map[string]reflect.Type{}
	for f := range yamlFields(t) {
		fields[yamlKey(f)] = f.Type
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ft, ok := fields[k.Value]
		full := strings.TrimPrefix(path+"."+k.Value, ".")
		if !ok {
			return fmt.Errorf("line %d: unknown key %q: valid keys under %s are %s", k.Line, full, orRoot(path), strings.Join(yamlKeys(t), ", "))
		}
		if err := checkNode(n.Content[i+1], ft, full); err != nil {
			return err
		}
	}
	return nil
}

func checkScalar(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: %s must be a single value, not a list or mapping", n.Line, path)
	}
	var err error
	want := ""
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		_, err = strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		want = "an integer"
	case reflect.Float64, reflect.Float32:
		_, err = strconv.ParseFloat(n.Value, 64)
		want = "a number"
	case reflect.Bool:
		if n.Tag != "!!bool" {
			err = fmt.Errorf("not a bool")
		}
		want = "true or false"
	case reflect.String:
		return nil
	}
	if err != nil {
		return fmt.Errorf("line %d: %s: %q is not %s", n.Line, path, n.Value, want)
	}
	return nil
}

func orRoot(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func yamlKey(f reflect.StructField) string {
	tag := f.Tag.Get("yaml")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

func yamlKeys(t reflect.Type) []string {
	var ks []string
	for f := range yamlFields(t) {
		ks = append(ks, yamlKey(f))
	}
	sort.Strings(ks)
	return ks
}

// yamlFields yields the fields of struct t that have a YAML key, those of
// an inlined struct (yaml:",inline") in its place.
func yamlFields(t reflect.Type) func(yield func(reflect.StructField) bool) {
	return func(yield func(reflect.StructField) bool) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if _, opts, _ := strings.Cut(f.Tag.Get("yaml"), ","); opts == "inline" && f.Type.Kind() == reflect.Struct {
				for g := range yamlFields(f.Type) {
					if !yield(g) {
						return
					}
				}
				continue
			}
			if yamlKey(f) != "" && !yield(f) {
				return
			}
		}
	}
}

// Marshal renders the resolved config as YAML, for the run folder.
func (c Config) Marshal() ([]byte, error) {
	return yaml.Marshal(c)
}
