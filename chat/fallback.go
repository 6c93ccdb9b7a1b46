package chat

import (
	_ "embed"
	"strings"
)

// fallbackFile is Qwen2.5-Instruct's chat_template (the Qwen2.5 tokenizer
// configs all ship the same one), byte for byte apart from the file's
// final newline.
//
//go:embed fallback_qwen25.jinja
var fallbackFile string

// FallbackSource is the Jinja source of the fallback template.
var FallbackSource = strings.TrimSuffix(fallbackFile, "\n")

// fallback is compiled once: the source is fixed, so a failure is a bug
// that every test run sees.
var fallback = func() *Template {
	t, err := newTemplate(map[string]string{"default": FallbackSource}, SpecialTokens{}, "")
	if err != nil {
		panic(err)
	}
	t.fallback = true
	return t
}()

// Fallback returns the template for checkpoints that ship none:
// Qwen2.5-Instruct's chat template (ChatML turns, the default system
// prompt "You are Qwen, created by Alibaba Cloud. You are a helpful
// assistant." when the conversation has none, tools in <tools>, calls in
// <tool_call>, results in <tool_response>), with the given special tokens.
func Fallback(tokens SpecialTokens) *Template {
	t := *fallback
	t.tokens = tokens
	t.tokens.Additional = append([]string(nil), tokens.Additional...)
	return &t
}
