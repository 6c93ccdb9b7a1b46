package policy

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tokenizerFolder writes testdata/gpt2-merges/tokenizer.json (EOS
// fallback <|endoftext|> = 265, <think> = 266) into a fresh folder with the
// given side files ("" leaves a file out) and returns its tokenizer.json.
func tokenizerFolder(t *testing.T, config, generation string) string {
	t.Helper()
	return tokenizerFolderWith(t, map[string]string{TokenizerConfigFile: config, GenerationConfigFile: generation})
}

// tokenizerFolderWith is tokenizerFolder with any side files.
func tokenizerFolderWith(t *testing.T, side map[string]string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "gpt2-merges", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{TokenizerJSONFile: string(data)}
	for name, content := range side {
		files[name] = content
	}
	for name, content := range files {
		if content == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, TokenizerJSONFile)
}

// TestStopIDsFromFolder: EOS and the stop ids come from the folder's
// tokenizer_config.json and generation_config.json, as HuggingFace reads
// them.
func TestStopIDsFromFolder(t *testing.T) {
	tests := []struct {
		name, config, generation string
		eos                      int
		stops                    []int
		err                      string // substring of the error; "" means none
	}{
		{"no side files", "", "", 265, []int{265}, ""},
		{"eos_token not the fallback", `{"eos_token": "<think>"}`, "", 266, []int{266}, ""},
		{"two stop ids", `{"eos_token": "<think>"}`, `{"eos_token_id": [266, 265]}`, 266, []int{266, 265}, ""},
		{"eos first whatever the list order", `{"eos_token": "<think>"}`, `{"eos_token_id": [265, 266]}`, 266, []int{266, 265}, ""},
		{"one integer", `{"eos_token": "<think>"}`, `{"eos_token_id": 265}`, 266, []int{266, 265}, ""},
		{"generation alone names EOS", "", `{"eos_token_id": [266, 265]}`, 266, []int{266, 265}, ""},
		{"null eos_token_id", `{"eos_token": "<think>"}`, `{"eos_token_id": null, "do_sample": true}`, 266, []int{266}, ""},
		{"repeats dropped", "", `{"eos_token_id": [265, 265]}`, 265, []int{265}, ""},
		{"id outside the vocabulary", "", `{"eos_token_id": [265, 9999]}`, 0, nil, "eos_token_id 9999"},
		{"negative id", "", `{"eos_token_id": -1}`, 0, nil, "eos_token_id -1"},
		{"not an integer", "", `{"eos_token_id": "<think>"}`, 0, nil, "neither an integer nor a list"},
		{"fraction", "", `{"eos_token_id": [1.5]}`, 0, nil, "neither an integer nor a list"},
		{"bad generation json", "", `{"eos_token_id": `, 0, nil, GenerationConfigFile},
		{"unknown eos_token", `{"eos_token": "<eos>"}`, `{"eos_token_id": 265}`, 0, nil, `"<eos>"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := LoadTokenizer(tokenizerFolder(t, tc.config, tc.generation))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "policy: load tokenizer") {
					t.Fatalf("err = %v, want a policy error mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.EOS() != tc.eos || !slices.Equal(tok.StopIDs(), tc.stops) {
				t.Errorf("EOS %d stops %v, want %d %v", tok.EOS(), tok.StopIDs(), tc.eos, tc.stops)
			}
			for id := 0; id < tok.VocabSize(); id++ {
				if tok.IsStop(id) != slices.Contains(tc.stops, id) {
					t.Errorf("IsStop(%d) = %v", id, tok.IsStop(id))
				}
			}
		})
	}
}

// TestTokenizerFilesRoundTrip: the files a tokenizer returns, written into
// another folder, load back with the same EOS and stop ids; files that
// were present come back byte for byte (chat_template included).
func TestTokenizerFilesRoundTrip(t *testing.T) {
	chat := `{"eos_token": "<think>", "chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}"}`
	tests := []struct {
		name, config, generation, template string
	}{
		{"no side files", "", "", ""},
		{"config only", chat, "", ""},
		{"generation only", "", `{"eos_token_id": [266, 265]}`, ""},
		{"both", chat, `{"eos_token_id": [266, 265], "temperature": 0.7}`, ""},
		{"chat_template.jinja", chat, "", "{{ messages[0].content }}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, err := LoadTokenizer(tokenizerFolderWith(t, map[string]string{
				TokenizerConfigFile: tc.config, GenerationConfigFile: tc.generation, ChatTemplateFile: tc.template}))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := src.Files().Write(dir); err != nil {
				t.Fatal(err)
			}
			back, err := LoadTokenizer(filepath.Join(dir, TokenizerJSONFile))
			if err != nil {
				t.Fatal(err)
			}
			if back.EOS() != src.EOS() || !slices.Equal(back.StopIDs(), src.StopIDs()) {
				t.Errorf("written back: EOS %d stops %v, source EOS %d stops %v", back.EOS(), back.StopIDs(), src.EOS(), src.StopIDs())
			}
			for name, want := range map[string]string{TokenizerConfigFile: tc.config, GenerationConfigFile: tc.generation} {
				got, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatalf("%s not written: %v", name, err)
				}
				if want != "" && !bytes.Equal(got, []byte(want)) {
					t.Errorf("%s = %s, want the source's %s", name, got, want)
				}
			}
			got, err := os.ReadFile(filepath.Join(dir, ChatTemplateFile))
			if tc.template == "" && err == nil || tc.template != "" && string(got) != tc.template {
				t.Errorf("%s = %q, %v; want %q (absent when the source has none)", ChatTemplateFile, got, err, tc.template)
			}
			parsed, err := ParseTokenizer(src.Files())
			if err != nil || parsed.EOS() != src.EOS() || !slices.Equal(parsed.StopIDs(), src.StopIDs()) {
				t.Errorf("ParseTokenizer(Files()) = %v, %v", parsed, err)
			}
		})
	}
}

// TestQwenInstructStopIDs: the Qwen tokenizer with Qwen2.5-Instruct's
// generation_config.json ends turns on <|im_end|> and <|endoftext|>.
func TestQwenInstructStopIDs(t *testing.T) {
	path := qwenTokenizerDir(t)
	gen := `{"bos_token_id": 151643, "pad_token_id": 151643, "do_sample": true, "eos_token_id": [151645, 151643]}`
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), GenerationConfigFile), []byte(gen), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := tok.TokenID("<|im_end|>")
	text, _ := tok.TokenID("<|endoftext|>")
	if tok.EOS() != end || !slices.Equal(tok.StopIDs(), []int{end, text}) {
		t.Errorf("EOS %d stops %v, want %d [%d %d]", tok.EOS(), tok.StopIDs(), end, end, text)
	}
	if !bytes.Contains(tok.Files().Config, []byte("chat_template")) {
		t.Error("the Qwen tokenizer_config.json lost its chat_template")
	}
}
