package chat

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

var hello = []Message{{Role: "user", Content: "hello"}}

func mustNew(t *testing.T, src string, tokens SpecialTokens) *Template {
	t.Helper()
	tmpl, err := New(src, tokens)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// TestEnvironment checks the variables, functions and syntax that
// transformers' Jinja environment gives a template.
func TestEnvironment(t *testing.T) {
	noon := func() time.Time { return time.Date(2024, 7, 26, 12, 0, 0, 0, time.Local) }
	tokens := SpecialTokens{BOS: "<s>", EOS: "</s>", Additional: []string{"<a>", "<b>"}}
	tests := []struct {
		name string
		src  string
		msgs []Message
		opts Options
		want string
	}{
		{"special tokens", "{{ bos_token }}|{{ eos_token }}|{{ additional_special_tokens | join(',') }}", hello, Options{}, "<s>|</s>|<a>,<b>"},
		{"unset special tokens are undefined", "{{ unk_token is defined }} {{ pad_token is defined }}", hello, Options{}, "False False"},
		{"no tools is none", "{{ tools is none }} {{ documents is none }}", hello, Options{}, "True True"},
		{"empty tools is a list", "{{ tools is none }} {{ tools | length }}", hello, Options{Tools: []json.RawMessage{}}, "False 0"},
		{"add_generation_prompt", "{{ add_generation_prompt }}", hello, Options{AddGenerationPrompt: true}, "True"},
		{"trim_blocks and lstrip_blocks", "<\n  {% if true %}\n  x\n  {% endif %}\n>", hello, Options{}, "<\n  x\n>"},
		{"a final newline is dropped", "a\n", hello, Options{}, "a"},
		{"loop controls", "{% for i in range(5) %}{% if i == 1 %}{% continue %}{% endif %}{% if i == 3 %}{% break %}{% endif %}{{ i }}{% endfor %}", hello, Options{}, "02"},
		{"namespace", "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}", hello, Options{}, "1"},
		{"generation tag", "{% generation %}{{ messages[0].content }}{% endgeneration %}", hello, Options{}, "hello"},
		{"strftime_now", "{{ strftime_now('%d %B %Y') }}", hello, Options{Now: noon}, "26 July 2024"},
		{"vars", "{{ enable_thinking }} {{ cfg.depth }} {{ cfg.tags | join('+') }}", hello,
			Options{Vars: map[string]any{"enable_thinking": false, "cfg": map[string]any{"depth": 2, "tags": []string{"x", "y"}}}}, "False 2 x+y"},
		{"vars override special tokens", "{{ eos_token }}", hello, Options{Vars: map[string]any{"eos_token": "<end>"}}, "<end>"},
		{"message fields", "{% for m in messages %}{{ m | tojson }}\n{% endfor %}",
			[]Message{
				{Role: "assistant", Content: "", ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "f"}}}},
				{Role: "tool", Content: "1", ToolCallID: "c1", Name: "f"},
				{Role: "user", Content: "ok"},
			}, Options{},
			`{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": {}}}]}` + "\n" +
				`{"role": "tool", "content": "1", "tool_call_id": "c1", "name": "f"}` + "\n" +
				`{"role": "user", "content": "ok"}` + "\n"},
		{"arguments string or object", "{% for c in messages[0].tool_calls %}{{ c.function.arguments is string }}:{{ c.function.arguments | tojson }} {% endfor %}",
			[]Message{{Role: "assistant", ToolCalls: []ToolCall{
				{Type: "function", Function: FunctionCall{Name: "f", Arguments: json.RawMessage(`{"z": 1, "a": [true]}`)}},
				{Function: FunctionCall{Name: "g", Arguments: json.RawMessage(`"{\"z\": 1}"`)}},
			}}}, Options{}, `False:{"z": 1, "a": [true]} True:"{\"z\": 1}" `},
		{"tool key order", "{{ tools[0] | tojson }}", hello,
			Options{Tools: []json.RawMessage{json.RawMessage(`{"type": "function", "function": {"name": "z", "parameters": {"b": 1, "a": 2}}}`)}},
			`{"type": "function", "function": {"name": "z", "parameters": {"b": 1, "a": 2}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mustNew(t, tt.src, tokens).Render(tt.msgs, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestPrinting checks that {{ value }} writes what Python's str() does, as
// Jinja2 prints (expected outputs from Python Jinja2).
func TestPrinting(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"none", "{{ none }}", "None"},
		{"numbers", "{{ 1.0 }}|{{ 2.5 }}|{{ 10 }}|{{ -0.5 }}", "1.0|2.5|10|-0.5"},
		{"booleans", "{{ true }}|{{ false }}", "True|False"},
		{"list", "{{ [1, 'a', none, true, 2.5] }}", "[1, 'a', None, True, 2.5]"},
		{"string reprs", `{{ {'a': "it's", 'b': 'q"', 'c': 't\tn\n\x01é'} }}`, `{'a': "it's", 'b': 'q"', 'c': 't\tn\n\x01é'}`},
		{"undefined", "[{{ missing }}]", "[]"},
		{"decoded JSON", "{{ d }}", "{'x': None, 'y': [1.0]}"},
		{"strings as they are", `{{ 'a\tb' ~ "c'd" }}`, "a\tbc'd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderVar(t, tt.src, `{"x": null, "y": [1.0]}`)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unclosed expression", "{{ messages", "line 1: unclosed tag"},
		{"unclosed block", "{% for m in messages %}{{ m }}", "for"},
		{"unknown statement", "{% frobnicate %}", "frobnicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.src, SpecialTokens{})
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "chat: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q: want the chat: prefix and %q", msg, tt.want)
			}
		})
	}
}

func TestRenderErrors(t *testing.T) {
	const echo = "{% for m in messages %}{{ m.content }}{% endfor %}"
	tests := []struct {
		name string
		src  string
		msgs []Message
		opts Options
		want string
	}{
		{"no messages", echo, nil, Options{}, "no messages"},
		{"unknown role", echo, []Message{{Role: "user", Content: "a"}, {Role: "robot", Content: "b"}}, Options{}, `message 1: role "robot"`},
		{"empty role", echo, []Message{{Content: "a"}}, Options{}, `message 0: role ""`},
		{"tool calls on a user message", echo, []Message{{Role: "user", ToolCalls: []ToolCall{{Function: FunctionCall{Name: "f"}}}}}, Options{}, "only assistant messages"},
		{"tool_call_id on an assistant message", echo, []Message{{Role: "assistant", ToolCallID: "x"}}, Options{}, "only tool messages"},
		{"tool call type", echo, []Message{{Role: "assistant", ToolCalls: []ToolCall{{Type: "code", Function: FunctionCall{Name: "f"}}}}}, Options{}, `tool call 0: type "code"`},
		{"tool call without a name", echo, []Message{{Role: "assistant", ToolCalls: []ToolCall{{}}}}, Options{}, "no function name"},
		{"arguments not JSON", echo, []Message{{Role: "assistant", ToolCalls: []ToolCall{{Function: FunctionCall{Name: "f", Arguments: json.RawMessage(`{"a":`)}}}}}, Options{}, "function f: arguments: invalid JSON"},
		{"arguments with trailing data", echo, []Message{{Role: "assistant", ToolCalls: []ToolCall{{Function: FunctionCall{Name: "f", Arguments: json.RawMessage(`{} {}`)}}}}}, Options{}, "data after the value"},
		{"tool not an object", echo, hello, Options{Tools: []json.RawMessage{json.RawMessage(`["python"]`)}}, "tool 0: want a JSON object"},
		{"tool not JSON", echo, hello, Options{Tools: []json.RawMessage{json.RawMessage(`{"type": }`)}}, "tool 0: invalid JSON"},
		{"reserved var", echo, hello, Options{Vars: map[string]any{"messages": []string{}}}, `Vars["messages"]`},
		{"unencodable var", echo, hello, Options{Vars: map[string]any{"f": func() {}}}, `Vars["f"]`},
		{"unknown template name", echo, hello, Options{TemplateName: "tool_use"}, `no template named "tool_use"`},
		{"unknown filter", "{{ messages | frobnicate }}", hello, Options{}, "frobnicate"},
		{"raise_exception", "{% if messages[0].role != 'system' %}{{ raise_exception('System message required.') }}{% endif %}", hello, Options{}, "template raised an exception: System message required."},
		{"strftime_now without format", "{{ strftime_now() }}", hello, Options{}, "strftime_now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mustNew(t, tt.src, SpecialTokens{}).Render(tt.msgs, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "chat: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q: want the chat: prefix and %q", msg, tt.want)
			}
		})
	}
}

func TestRaiseError(t *testing.T) {
	tmpl := mustNew(t, "{{ raise_exception('Only user and assistant roles are supported!') }}", SpecialTokens{})
	_, err := tmpl.Render(hello, Options{})
	var raised *RaiseError
	if !errors.As(err, &raised) {
		t.Fatalf("error %v is not a *RaiseError", err)
	}
	if raised.Message != "Only user and assistant roles are supported!" {
		t.Errorf("message %q", raised.Message)
	}
}

func TestTemplateSelection(t *testing.T) {
	tool := []json.RawMessage{json.RawMessage(`{"type": "function"}`)}
	tests := []struct {
		name      string
		templates map[string]string
		opts      Options
		want      string // rendered text, or a part of the error
	}{
		{"single template, tools", map[string]string{"default": "D"}, Options{Tools: tool}, "D"},
		{"tools pick tool_use", map[string]string{"default": "D", "tool_use": "T"}, Options{Tools: tool}, "T"},
		{"empty tools pick tool_use", map[string]string{"default": "D", "tool_use": "T"}, Options{Tools: []json.RawMessage{}}, "T"},
		{"no tools pick default", map[string]string{"default": "D", "tool_use": "T"}, Options{}, "D"},
		{"name wins", map[string]string{"default": "D", "tool_use": "T"}, Options{Tools: tool, TemplateName: "default"}, "D"},
		{"a single named template is the one", map[string]string{"rag": "R"}, Options{}, "R"},
		{"no default", map[string]string{"rag": "R", "tool_use": "T"}, Options{}, `chat: several templates (rag, tool_use) and none is "default"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := newTemplate(tt.templates, SpecialTokens{}, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := tmpl.Render(hello, tt.opts)
			switch {
			case err != nil && !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %q, want one containing %q", err, tt.want)
			case err == nil && got != tt.want:
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConcurrentRender(t *testing.T) {
	tmpl := Fallback(SpecialTokens{})
	want, err := tmpl.Render(hello, Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, err := tmpl.Render(hello, Options{AddGenerationPrompt: true})
				if err != nil || got != want {
					errs <- got
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("concurrent render gave %q, want %q", got, want)
	}
}
