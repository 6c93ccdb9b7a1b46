package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
)

// Message is one turn of a conversation, in OpenAI's chat shape.
type Message struct {
	Role       string     `json:"role"` // "system", "user", "assistant" or "tool"
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant turns only
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool turns only
	Name       string     `json:"name,omitempty"`
}

// ToolCall is one function call of an assistant turn.
type ToolCall struct {
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type"` // "function"; empty means "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function a ToolCall calls and its arguments.
type FunctionCall struct {
	Name string `json:"name"`
	// Arguments is JSON: an object (HuggingFace's form, the template sees
	// a dict) or a string holding the JSON text (OpenAI's form, the
	// template sees that string). Empty means {}.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Options are the arguments of one rendering besides the messages.
type Options struct {
	// Tools are the function schemas the model may call, each a JSON
	// object such as {"type": "function", "function": {"name": ...,
	// "description": ..., "parameters": {...}}}. Nil passes tools=None, as
	// transformers does without tools; an empty non-nil slice passes [].
	Tools []json.RawMessage
	// AddGenerationPrompt appends the prefix of a new assistant turn.
	AddGenerationPrompt bool
	// Vars are further template variables (transformers' **kwargs, such
	// as enable_thinking), converted through their JSON encoding. They
	// may override special tokens but not messages, tools, documents or
	// add_generation_prompt.
	Vars map[string]any
	// TemplateName picks one of a checkpoint's named templates; empty
	// picks as transformers does: "tool_use" when Tools is not nil and the
	// checkpoint has it, else "default".
	TemplateName string
	// Now is the clock of strftime_now; nil means time.Now.
	Now func() time.Time
}

// SpecialTokens are the special tokens of a tokenizer_config.json, which
// templates see as variables (bos_token, ...). An empty one is not passed.
type SpecialTokens struct {
	BOS, EOS, UNK, SEP, PAD, CLS, Mask string
	Additional                         []string
}

// Template is a compiled chat template: one or more named Jinja sources
// and the special tokens they see. It is safe for concurrent use.
type Template struct {
	names    []string // sorted
	compiled map[string]*jinja.Template
	sources  map[string]string
	tokens   SpecialTokens
	origin   string
	fallback bool
}

// RaiseError is the error of a template that called raise_exception, the
// way a chat template refuses a conversation it does not support.
type RaiseError struct {
	Message string
}

func (e *RaiseError) Error() string { return "template raised an exception: " + e.Message }

// New compiles a chat_template source with the special tokens it sees.
func New(source string, tokens SpecialTokens) (*Template, error) {
	return newTemplate(map[string]string{"default": source}, tokens, "")
}

// newTemplate compiles named sources; origin names the file they came
// from, for errors ("" for none).
func newTemplate(sources map[string]string, tokens SpecialTokens, origin string) (*Template, error) {
	tokens.Additional = slices.Clone(tokens.Additional)
	t := &Template{
		compiled: make(map[string]*jinja.Template, len(sources)),
		sources:  sources,
		tokens:   tokens,
		origin:   origin,
	}
	names := slices.Sorted(maps.Keys(sources))
	for _, name := range names {
		canon, err := canonicalize(sources[name])
		if err != nil {
			return nil, fmt.Errorf("chat: %s: %w", t.describe(name), err)
		}
		c, err := jinja.Compile(canon)
		if err != nil {
			return nil, fmt.Errorf("chat: %s: %w", t.describe(name), err)
		}
		t.compiled[name] = c
	}
	t.names = names
	return t, nil
}

// describe names template name for errors: `template "tool_use" of FILE`.
func (t *Template) describe(name string) string {
	s := fmt.Sprintf("template %q", name)
	if t.fallback {
		s = "fallback template"
	}
	if t.origin != "" {
		s += " of " + t.origin
	}
	return s
}

// Names returns the names of the template's variants, sorted: "default"
// for a single chat_template, the names of the list form otherwise.
func (t *Template) Names() []string { return slices.Clone(t.names) }

// Source returns the Jinja source of the named variant, as shipped.
func (t *Template) Source(name string) (string, bool) {
	s, ok := t.sources[name]
	return s, ok
}

// SpecialTokens returns the special tokens the template sees.
func (t *Template) SpecialTokens() SpecialTokens {
	tok := t.tokens
	tok.Additional = slices.Clone(tok.Additional)
	return tok
}

// IsFallback reports whether t is the built-in Qwen2.5 template (see
// Fallback).
func (t *Template) IsFallback() bool { return t.fallback }

// pick returns the variant to render, as transformers picks one.
func (t *Template) pick(opts Options) (string, error) {
	switch {
	case opts.TemplateName != "":
		if _, ok := t.compiled[opts.TemplateName]; !ok {
			return "", fmt.Errorf("no template named %q (have %s)", opts.TemplateName, strings.Join(t.names, ", "))
		}
		return opts.TemplateName, nil
	case len(t.names) == 1:
		return t.names[0], nil
	case opts.Tools != nil && t.compiled["tool_use"] != nil:
		return "tool_use", nil
	case t.compiled["default"] != nil:
		return "default", nil
	}
	return "", fmt.Errorf("several templates (%s) and none is \"default\": set Options.TemplateName", strings.Join(t.names, ", "))
}

var roles = map[string]bool{"system": true, "user": true, "assistant": true, "tool": true}

// reserved are the variables Options.Vars may not set.
var reserved = map[string]bool{"messages": true, "tools": true, "documents": true, "add_generation_prompt": true}

// Render renders a conversation as transformers' apply_chat_template(msgs,
// tools=..., add_generation_prompt=..., tokenize=False) does. See the
// package documentation for the variables a template sees.
func (t *Template) Render(msgs []Message, opts Options) (string, error) {
	name, err := t.pick(opts)
	if err != nil {
		return "", fmt.Errorf("chat: %w", err)
	}
	vars, err := t.variables(msgs, opts)
	if err != nil {
		return "", fmt.Errorf("chat: %w", err)
	}
	out, err := t.compiled[name].RenderValues(vars)
	if err != nil {
		return "", fmt.Errorf("chat: render %s: %w", t.describe(name), err)
	}
	return out, nil
}

// variables builds the render's variables: the special tokens, then
// messages, tools, documents and add_generation_prompt, then opts.Vars,
// and the functions and filter of transformers' environment.
func (t *Template) variables(msgs []Message, opts Options) (map[string]jinja.Value, error) {
	if len(msgs) == 0 {
		return nil, errors.New("no messages")
	}
	vars := make(map[string]jinja.Value, 16)
	t.putTokens(vars)
	list, err := messageList(msgs)
	if err != nil {
		return nil, err
	}
	vars["messages"] = list
	if vars["tools"], err = toolList(opts.Tools); err != nil {
		return nil, err
	}
	vars["documents"] = jinja.None()
	vars["add_generation_prompt"] = jinja.NewBool(opts.AddGenerationPrompt)
	for k, x := range opts.Vars {
		if reserved[k] {
			return nil, fmt.Errorf("Vars[%q]: %s is set by Render", k, k)
		}
		v, err := goValue(x)
		if err != nil {
			return nil, fmt.Errorf("Vars[%q]: %w", k, err)
		}
		vars[k] = v
	}
	putFunctions(vars, opts.Now)
	return vars, nil
}

// putTokens sets the special tokens the template's tokenizer has.
func (t *Template) putTokens(vars map[string]jinja.Value) {
	str := func(k, s string) {
		if s != "" {
			vars[k] = jinja.NewString(s)
		}
	}
	str("bos_token", t.tokens.BOS)
	str("eos_token", t.tokens.EOS)
	str("unk_token", t.tokens.UNK)
	str("sep_token", t.tokens.SEP)
	str("pad_token", t.tokens.PAD)
	str("cls_token", t.tokens.CLS)
	str("mask_token", t.tokens.Mask)
	if len(t.tokens.Additional) > 0 {
		items := make([]jinja.Value, len(t.tokens.Additional))
		for i, s := range t.tokens.Additional {
			items[i] = jinja.NewString(s)
		}
		vars["additional_special_tokens"] = jinja.NewList(items)
	}
}

// messageList checks each message's role and fields and converts them.
func messageList(msgs []Message) (jinja.Value, error) {
	list := make([]jinja.Value, len(msgs))
	for i, m := range msgs {
		if !roles[m.Role] {
			return jinja.Value{}, fmt.Errorf("message %d: role %q: want system, user, assistant or tool", i, m.Role)
		}
		if len(m.ToolCalls) > 0 && m.Role != "assistant" {
			return jinja.Value{}, fmt.Errorf("message %d: a %s message has tool calls: only assistant messages may", i, m.Role)
		}
		if m.ToolCallID != "" && m.Role != "tool" {
			return jinja.Value{}, fmt.Errorf("message %d: a %s message has a tool_call_id: only tool messages may", i, m.Role)
		}
		v, err := messageValue(m)
		if err != nil {
			return jinja.Value{}, fmt.Errorf("message %d: %w", i, err)
		}
		list[i] = v
	}
	return jinja.NewList(list), nil
}

// toolList converts the tools' JSON objects; None when there are none.
func toolList(raws []json.RawMessage) (jinja.Value, error) {
	if raws == nil {
		return jinja.None(), nil
	}
	tools := make([]jinja.Value, len(raws))
	for i, raw := range raws {
		if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			return jinja.Value{}, fmt.Errorf("tool %d: want a JSON object", i)
		}
		v, err := jsonValue(raw)
		if err != nil {
			return jinja.Value{}, fmt.Errorf("tool %d: %w", i, err)
		}
		tools[i] = v
	}
	return jinja.NewList(tools), nil
}

// putFunctions sets the functions and filters of transformers'
// environment; strftime_now reads the clock now (time.Now when nil).
func putFunctions(vars map[string]jinja.Value, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	vars["raise_exception"] = jinja.NewCallable("raise_exception", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		msg := ""
		if len(args) > 0 {
			msg = display(args[0])
		}
		return jinja.Undefined(), &RaiseError{Message: msg}
	})
	vars["strftime_now"] = jinja.NewCallable("strftime_now", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		if len(args) != 1 || !args[0].IsString() {
			return jinja.Undefined(), errors.New("strftime_now: want one format string")
		}
		return jinja.NewString(strftime(args[0].AsString(), now())), nil
	})
	vars[tojsonFilter] = jinja.NewCallable("tojson", tojson)
	vars[printFilter] = jinja.NewCallable("print", printValue)
}

// display is v as {{ v }} writes it, for raise_exception's message.
func display(v jinja.Value) string {
	if v.IsString() {
		return v.AsString()
	}
	return v.String()
}

// Origin names where the template came from, for messages: the file it
// was loaded from, or "the built-in Qwen2.5 template".
func (t *Template) Origin() string {
	switch {
	case t.origin != "":
		return t.origin
	case t.fallback:
		return "the built-in Qwen2.5 template"
	}
	return "a template string"
}
