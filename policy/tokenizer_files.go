package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/artist-rl/artist/internal/atomicfile"
)

// The files of a tokenizer, as HuggingFace keeps them side by side in a
// model folder.
const (
	TokenizerJSONFile    = "tokenizer.json"         // vocabulary, merges, added tokens, pre-tokenizer
	TokenizerConfigFile  = "tokenizer_config.json"  // eos_token, chat_template, other special tokens
	GenerationConfigFile = "generation_config.json" // eos_token_id: the ids generation stops on
	ChatTemplateFile     = "chat_template.jinja"    // a chat template that replaces tokenizer_config.json's
)

// TokenizerFileNames are the files TokenizerFiles.Write may write.
var TokenizerFileNames = []string{TokenizerJSONFile, TokenizerConfigFile, GenerationConfigFile, ChatTemplateFile}

// fallbackEOS is the end-of-sequence token of a tokenizer whose folder
// names none (GPT-2's and Qwen's base vocabulary's).
const fallbackEOS = "<|endoftext|>"

// TokenizerFiles is the content of a tokenizer's files. Config,
// Generation and ChatTemplate are nil when the folder has no such file. A
// Tokenizer keeps the files it was parsed from, so a checkpoint can carry
// them verbatim (chat templates and the other keys included).
type TokenizerFiles struct {
	JSON         []byte // tokenizer.json
	Config       []byte // tokenizer_config.json, or nil
	Generation   []byte // generation_config.json, or nil
	ChatTemplate []byte // chat_template.jinja, or nil; carried, not parsed
}

// ReadTokenizerFiles reads the tokenizer.json at path and the
// tokenizer_config.json, generation_config.json and chat_template.jinja
// of the same folder, where present.
func ReadTokenizerFiles(path string) (TokenizerFiles, error) {
	var f TokenizerFiles
	var err error
	if f.JSON, err = os.ReadFile(path); err != nil {
		return TokenizerFiles{}, fmt.Errorf("policy: load tokenizer: %w", err)
	}
	dir := filepath.Dir(path)
	if f.Config, err = readOptional(filepath.Join(dir, TokenizerConfigFile)); err != nil {
		return TokenizerFiles{}, fmt.Errorf("policy: load tokenizer %s: %w", path, err)
	}
	if f.Generation, err = readOptional(filepath.Join(dir, GenerationConfigFile)); err != nil {
		return TokenizerFiles{}, fmt.Errorf("policy: load tokenizer %s: %w", path, err)
	}
	if f.ChatTemplate, err = readOptional(filepath.Join(dir, ChatTemplateFile)); err != nil {
		return TokenizerFiles{}, fmt.Errorf("policy: load tokenizer %s: %w", path, err)
	}
	return f, nil
}

// readOptional returns the content of path, or nil when it does not exist.
func readOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{} // present but empty: not the same as absent
	}
	return b, nil
}

// LoadTokenizer reads a byte-level BPE tokenizer.json together with the
// tokenizer_config.json and generation_config.json of its folder, as
// HuggingFace's AutoTokenizer and GenerationConfig do (ReadTokenizerFiles,
// then ParseTokenizer). It is the one way the trainer, eval, sample and
// serve load a tokenizer from disk.
func LoadTokenizer(path string) (*Tokenizer, error) {
	f, err := ReadTokenizerFiles(path)
	if err != nil {
		return nil, err
	}
	t, err := parseTokenizerFiles(f)
	if err != nil {
		return nil, fmt.Errorf("policy: load tokenizer %s: %w", path, err)
	}
	return t, nil
}

// ParseTokenizer builds a tokenizer from the content of its files.
//
// EOS is the eos_token of tokenizer_config.json (a string or
// {"content": ...}); without one, the first eos_token_id of
// generation_config.json; without either, <|endoftext|>. The stop ids
// (StopIDs) are EOS followed by every eos_token_id of
// generation_config.json (an integer or a list of integers), without
// repeats: Qwen2.5-Instruct names <|im_end|> as its eos_token and stops
// on [151645, 151643], <|im_end|> and <|endoftext|>. A token named by
// either file that is not in tokenizer.json is an error.
func ParseTokenizer(f TokenizerFiles) (*Tokenizer, error) {
	t, err := parseTokenizerFiles(f)
	if err != nil {
		return nil, fmt.Errorf("policy: tokenizer: %w", err)
	}
	return t, nil
}

func parseTokenizerFiles(f TokenizerFiles) (*Tokenizer, error) {
	t, err := parseTokenizer(f.JSON)
	if err != nil {
		return nil, err
	}
	eos, named, err := readEOSName(f.Config)
	if err != nil {
		return nil, err
	}
	gen, err := readStopIDs(f.Generation)
	if err != nil {
		return nil, err
	}
	for _, id := range gen {
		if t.piece(id) == "" {
			return nil, fmt.Errorf("%s: eos_token_id %d is not a token of tokenizer.json (%d ids): fix or remove it", GenerationConfigFile, id, t.VocabSize())
		}
	}
	switch id, ok := t.TokenID(eos); {
	case !named && len(gen) > 0:
		t.eos = gen[0]
	case ok:
		t.eos = id
	case named:
		return nil, fmt.Errorf("EOS token %q is not in the vocabulary: name one of its tokens as eos_token in %s", eos, TokenizerConfigFile)
	default:
		return nil, fmt.Errorf("EOS token %q is not in the vocabulary: name the end-of-sequence token as eos_token in %s", eos, TokenizerConfigFile)
	}
	t.stops = []int{t.eos}
	for _, id := range gen {
		if !slices.Contains(t.stops, id) {
			t.stops = append(t.stops, id)
		}
	}
	t.files = f
	return t, nil
}

// readEOSName returns the eos_token of a tokenizer_config.json, given as a
// string or as {"content": ...}, and whether the file names one; it is
// <|endoftext|> when cfg is nil or names none.
func readEOSName(cfg []byte) (name string, named bool, err error) {
	if cfg == nil {
		return fallbackEOS, false, nil
	}
	var c struct {
		EOS json.RawMessage `json:"eos_token"`
	}
	if err := json.Unmarshal(cfg, &c); err != nil {
		return "", false, fmt.Errorf("%s: %w", TokenizerConfigFile, err)
	}
	if len(c.EOS) == 0 || string(c.EOS) == "null" {
		return fallbackEOS, false, nil
	}
	if json.Unmarshal(c.EOS, &name) == nil {
		return name, true, nil
	}
	var tok struct{ Content string }
	if err := json.Unmarshal(c.EOS, &tok); err != nil || tok.Content == "" {
		return "", false, fmt.Errorf("%s: eos_token %s is neither a string nor {\"content\": ...}", TokenizerConfigFile, c.EOS)
	}
	return tok.Content, true, nil
}

// readStopIDs returns the eos_token_id of a generation_config.json, an
// integer or a list of integers, as a list; nil when gen is nil or names
// none.
func readStopIDs(gen []byte) ([]int, error) {
	if gen == nil {
		return nil, nil
	}
	var c struct {
		EOS json.RawMessage `json:"eos_token_id"`
	}
	if err := json.Unmarshal(gen, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", GenerationConfigFile, err)
	}
	if len(c.EOS) == 0 || string(c.EOS) == "null" {
		return nil, nil
	}
	var one int
	if json.Unmarshal(c.EOS, &one) == nil {
		return []int{one}, nil
	}
	var ids []int
	if err := json.Unmarshal(c.EOS, &ids); err != nil {
		return nil, fmt.Errorf("%s: eos_token_id %s is neither an integer nor a list of integers", GenerationConfigFile, c.EOS)
	}
	return ids, nil
}

// StopIDs returns the ids that end generation: EOS first, then the other
// eos_token_id values of generation_config.json. The caller may modify the
// returned slice.
func (t *Tokenizer) StopIDs() []int { return slices.Clone(t.stops) }

// IsStop reports whether id ends generation (is one of StopIDs).
func (t *Tokenizer) IsStop(id int) bool { return slices.Contains(t.stops, id) }

// Files returns the files the tokenizer was parsed from, with an absent
// tokenizer_config.json or generation_config.json written out from what
// ParseTokenizer resolved (eos_token; eos_token_id = StopIDs), so that
// ParseTokenizer(t.Files()) has the same EOS and stop ids, and writing
// them into a folder makes LoadTokenizer there agree with t. Present files
// (chat_template.jinja among them) come back verbatim. The slices must not
// be modified.
func (t *Tokenizer) Files() TokenizerFiles {
	f := t.files
	if f.Config == nil {
		f.Config = TokenizerConfigJSON(t.tokenString(t.eos))
	}
	if f.Generation == nil {
		f.Generation = GenerationConfigJSON(t.stops)
	}
	return f
}

// tokenString is the string TokenID maps to id: an added token's content
// or a vocabulary entry in byte-level symbols.
func (t *Tokenizer) tokenString(id int) string {
	for _, a := range t.added {
		if a.id == id {
			return a.content
		}
	}
	for s, i := range t.ids {
		if i == id {
			return s
		}
	}
	return ""
}

// TokenizerConfigJSON is a minimal tokenizer_config.json naming eos as the
// end-of-sequence token.
func TokenizerConfigJSON(eos string) []byte {
	b, err := marshalJSON(map[string]any{
		"eos_token":                    eos,
		"tokenizer_class":              "PreTrainedTokenizerFast",
		"clean_up_tokenization_spaces": false,
	})
	if err != nil {
		panic(err) // strings always marshal
	}
	return b
}

// GenerationConfigJSON is a minimal generation_config.json whose
// eos_token_id lists stops (an integer when there is one, as HuggingFace
// writes it).
func GenerationConfigJSON(stops []int) []byte {
	var v any = stops
	if len(stops) == 1 {
		v = stops[0]
	}
	b, err := marshalJSON(map[string]any{"eos_token_id": v})
	if err != nil {
		panic(err) // integers always marshal
	}
	return b
}

// Write writes the files into dir (tokenizer.json, and
// tokenizer_config.json, generation_config.json and chat_template.jinja
// when not nil), each atomically, creating dir if needed.
func (f TokenizerFiles) Write(dir string) error {
	if f.JSON == nil {
		return errors.New("policy: write tokenizer: no tokenizer.json content")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("policy: write tokenizer: %w", err)
	}
	for _, file := range []struct {
		name string
		data []byte
	}{{TokenizerJSONFile, f.JSON}, {TokenizerConfigFile, f.Config}, {GenerationConfigFile, f.Generation}, {ChatTemplateFile, f.ChatTemplate}} {
		if file.data == nil {
			continue
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, file.name), file.data, 0o644); err != nil {
			return fmt.Errorf("policy: write tokenizer: %w", err)
		}
	}
	return nil
}
