package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Files of a checkpoint folder that Load reads.
const (
	ConfigFile   = "tokenizer_config.json"
	TemplateFile = "chat_template.jinja"
)

// Load returns the chat template of the checkpoint folder dir, as
// transformers' AutoTokenizer.from_pretrained(dir) finds it:
//
//   - dir/chat_template.jinja, when present, is the "default" template
//     and replaces any chat_template of tokenizer_config.json;
//   - otherwise tokenizer_config.json's chat_template: a string (the
//     "default" template) or a list of {"name", "template"} objects (named
//     templates, such as "default" and "tool_use");
//   - a folder without either gets Fallback, the Qwen2.5 template.
//
// Special tokens come from tokenizer_config.json when it exists. A file
// that cannot be read or parsed, a chat_template of another type, or a
// template that does not compile is an error naming the file.
func Load(dir string) (*Template, error) {
	configPath := filepath.Join(dir, ConfigFile)
	var cfg tokenizerConfig
	data, err := os.ReadFile(configPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("chat: %w", err)
	default:
		if cfg, err = parseConfig(data); err != nil {
			return nil, fmt.Errorf("chat: %s: %w", configPath, err)
		}
	}

	templatePath := filepath.Join(dir, TemplateFile)
	src, err := os.ReadFile(templatePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("chat: %w", err)
	default:
		return newTemplate(map[string]string{"default": string(src)}, cfg.tokens, templatePath)
	}
	if cfg.templates == nil {
		return Fallback(cfg.tokens), nil
	}
	return newTemplate(cfg.templates, cfg.tokens, configPath)
}

// tokenizerConfig is what Load uses of a tokenizer_config.json.
type tokenizerConfig struct {
	templates map[string]string // nil: no chat_template
	tokens    SpecialTokens
}

// parseConfig reads the chat templates and special tokens of a
// tokenizer_config.json.
func parseConfig(data []byte) (tokenizerConfig, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return tokenizerConfig{}, fmt.Errorf("invalid JSON: %w", err)
	}
	var cfg tokenizerConfig
	var err error
	if cfg.templates, err = parseChatTemplate(raw["chat_template"]); err != nil {
		return tokenizerConfig{}, fmt.Errorf("chat_template: %w", err)
	}
	for key, dst := range map[string]*string{
		"bos_token": &cfg.tokens.BOS, "eos_token": &cfg.tokens.EOS,
		"unk_token": &cfg.tokens.UNK, "sep_token": &cfg.tokens.SEP,
		"pad_token": &cfg.tokens.PAD, "cls_token": &cfg.tokens.CLS,
		"mask_token": &cfg.tokens.Mask,
	} {
		if *dst, err = parseToken(raw[key]); err != nil {
			return tokenizerConfig{}, fmt.Errorf("%s: %w", key, err)
		}
	}
	if extra := raw["additional_special_tokens"]; !isNull(extra) {
		var list []json.RawMessage
		if err := json.Unmarshal(extra, &list); err != nil {
			return tokenizerConfig{}, fmt.Errorf("additional_special_tokens: want a list of tokens")
		}
		for i, item := range list {
			tok, err := parseToken(item)
			if err != nil || tok == "" {
				return tokenizerConfig{}, fmt.Errorf("additional_special_tokens[%d]: want a token", i)
			}
			cfg.tokens.Additional = append(cfg.tokens.Additional, tok)
		}
	}
	return cfg, nil
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// parseChatTemplate reads a chat_template value: nil for none, a string,
// or a list of {"name", "template"}.
func parseChatTemplate(raw json.RawMessage) (map[string]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return map[string]string{"default": s}, nil
	}
	var list []struct {
		Name     *string `json:"name"`
		Template *string `json:"template"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("want a string or a list of {\"name\", \"template\"} objects")
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("an empty list")
	}
	out := make(map[string]string, len(list))
	for i, e := range list {
		if e.Name == nil || *e.Name == "" || e.Template == nil {
			return nil, fmt.Errorf("entry %d: want a name and a template string", i)
		}
		if _, dup := out[*e.Name]; dup {
			return nil, fmt.Errorf("entry %d: a second template named %q", i, *e.Name)
		}
		out[*e.Name] = *e.Template
	}
	return out, nil
}

// parseToken reads a special token: null, a string, or an AddedToken
// object {"content": ...}.
func parseToken(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Content == nil {
		return "", fmt.Errorf("want a string or an object with a \"content\" string")
	}
	return *obj.Content, nil
}
