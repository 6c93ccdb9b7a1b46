package chat

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// checkpoint writes files into a new folder and returns it.
func checkpoint(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoad(t *testing.T) {
	const chatTemplate = `"{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"`
	msgs := []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}
	tests := []struct {
		name     string
		files    map[string]string
		fallback bool
		names    []string
		tokens   SpecialTokens
		want     string // Render(msgs) without tools
	}{
		{
			name:   "string template, string tokens",
			files:  map[string]string{ConfigFile: `{"chat_template": ` + chatTemplate + `, "bos_token": "<s>", "eos_token": "</s>", "unk_token": null}`},
			names:  []string{"default"},
			tokens: SpecialTokens{BOS: "<s>", EOS: "</s>"},
			want:   "<s>[system]s[user]u",
		},
		{
			name: "AddedToken objects",
			files: map[string]string{ConfigFile: `{"chat_template": ` + chatTemplate + `,
				"bos_token": {"__type": "AddedToken", "content": "<|begin|>", "lstrip": false},
				"additional_special_tokens": ["<a>", {"content": "<b>"}]}`},
			names:  []string{"default"},
			tokens: SpecialTokens{BOS: "<|begin|>", Additional: []string{"<a>", "<b>"}},
			want:   "<|begin|>[system]s[user]u",
		},
		{
			name: "named templates",
			files: map[string]string{ConfigFile: `{"chat_template": [
				{"name": "default", "template": "D{{ messages | length }}"},
				{"name": "tool_use", "template": "T{{ tools | length }}"}]}`},
			names: []string{"default", "tool_use"},
			want:  "D2",
		},
		{
			name: "chat_template.jinja replaces the config's",
			files: map[string]string{
				ConfigFile:   `{"chat_template": "from config", "eos_token": "</s>"}`,
				TemplateFile: "from file {{ eos_token }}\n",
			},
			names:  []string{"default"},
			tokens: SpecialTokens{EOS: "</s>"},
			want:   "from file </s>",
		},
		{
			name:     "no tokenizer_config.json",
			files:    map[string]string{"tokenizer.json": "{}"},
			fallback: true,
			names:    []string{"default"},
			want:     "<|im_start|>system\ns<|im_end|>\n<|im_start|>user\nu<|im_end|>\n",
		},
		{
			name:     "config without chat_template",
			files:    map[string]string{ConfigFile: `{"eos_token": "<|im_end|>", "chat_template": null}`},
			fallback: true,
			names:    []string{"default"},
			tokens:   SpecialTokens{EOS: "<|im_end|>"},
			want:     "<|im_start|>system\ns<|im_end|>\n<|im_start|>user\nu<|im_end|>\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := Load(checkpoint(t, tt.files))
			if err != nil {
				t.Fatal(err)
			}
			if tmpl.IsFallback() != tt.fallback {
				t.Errorf("IsFallback() = %v, want %v", tmpl.IsFallback(), tt.fallback)
			}
			if got := tmpl.Names(); !reflect.DeepEqual(got, tt.names) {
				t.Errorf("Names() = %q, want %q", got, tt.names)
			}
			if got := tmpl.SpecialTokens(); !reflect.DeepEqual(got, tt.tokens) {
				t.Errorf("SpecialTokens() = %+v, want %+v", got, tt.tokens)
			}
			got, err := tmpl.Render(msgs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Render = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoadQwenCheckpoint(t *testing.T) {
	tmpl, err := Load(qwenDir)
	if err != nil {
		t.Fatal(err)
	}
	tok := tmpl.SpecialTokens()
	if tok.EOS != "<|im_end|>" || tok.PAD != "<|endoftext|>" || tok.BOS != "" || len(tok.Additional) != 13 {
		t.Errorf("special tokens %+v", tok)
	}
	src, ok := tmpl.Source("default")
	if !ok || !strings.Contains(src, "enable_thinking") {
		t.Errorf("Source(default) is not the Qwen3 template")
	}
}

func TestFallbackSource(t *testing.T) {
	// Qwen2.5-Instruct's chat_template is 2506 bytes and starts and ends so.
	if len(FallbackSource) != 2506 ||
		!strings.HasPrefix(FallbackSource, "{%- if tools %}\n    {{- '<|im_start|>system\\n' }}") ||
		!strings.HasSuffix(FallbackSource, "{{- '<|im_start|>assistant\\n' }}\n{%- endif %}") {
		t.Errorf("FallbackSource is not Qwen2.5's template (%d bytes)", len(FallbackSource))
	}
	fb := Fallback(SpecialTokens{EOS: "<|im_end|>"})
	if !fb.IsFallback() || fb.SpecialTokens().EOS != "<|im_end|>" {
		t.Errorf("Fallback: IsFallback %v, tokens %+v", fb.IsFallback(), fb.SpecialTokens())
	}
	if src, _ := fb.Source("default"); src != FallbackSource {
		t.Error("Fallback's source is not FallbackSource")
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // after the file's path
	}{
		{"invalid JSON", map[string]string{ConfigFile: `{"chat_template": `}, ConfigFile + ": invalid JSON"},
		{"not an object", map[string]string{ConfigFile: `["x"]`}, ConfigFile + ": invalid JSON"},
		{"template of another type", map[string]string{ConfigFile: `{"chat_template": 42}`}, ConfigFile + ": chat_template: want a string or a list"},
		{"empty template list", map[string]string{ConfigFile: `{"chat_template": []}`}, ConfigFile + ": chat_template: an empty list"},
		{"entry without template", map[string]string{ConfigFile: `{"chat_template": [{"name": "default"}]}`}, ConfigFile + ": chat_template: entry 0: want a name and a template"},
		{"entry without name", map[string]string{ConfigFile: `{"chat_template": [{"template": "x"}]}`}, ConfigFile + ": chat_template: entry 0: want a name"},
		{"duplicate names", map[string]string{ConfigFile: `{"chat_template": [{"name": "a", "template": "x"}, {"name": "a", "template": "y"}]}`}, ConfigFile + `: chat_template: entry 1: a second template named "a"`},
		{"bad token", map[string]string{ConfigFile: `{"eos_token": 7}`}, ConfigFile + ": eos_token: want a string or an object"},
		{"token object without content", map[string]string{ConfigFile: `{"bos_token": {"lstrip": true}}`}, ConfigFile + ": bos_token: want a string or an object"},
		{"bad additional token", map[string]string{ConfigFile: `{"additional_special_tokens": ["<a>", 3]}`}, ConfigFile + ": additional_special_tokens[1]"},
		{"template that does not compile", map[string]string{ConfigFile: `{"chat_template": "{% for m in messages %}"}`}, ConfigFile},
		{"chat_template.jinja that does not compile", map[string]string{TemplateFile: "{{ messages"}, TemplateFile + `: line 1: unclosed tag`},
		{"named template that does not compile", map[string]string{ConfigFile: `{"chat_template": [{"name": "tool_use", "template": "{% if %}"}]}`}, ConfigFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := checkpoint(t, tt.files)
			_, err := Load(dir)
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "chat: ") || !strings.Contains(msg, filepath.Join(dir, tt.want)) {
				t.Errorf("error %q: want the chat: prefix and %q", msg, filepath.Join(dir, tt.want))
			}
		})
	}
}
