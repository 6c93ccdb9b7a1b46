package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
)

// byteTokenizer writes a byte-level tokenizer (ids 0..255 are the bytes,
// 256 is <|im_end|>) and returns the path of its tokenizer.json.
func byteTokenizer(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := policy.WriteByteLevelTokenizer(dir, []string{"<|im_end|>"}, "<|im_end|>"); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "tokenizer.json")
}

// runWithStdin runs the CLI with the given standard input.
func runWithStdin(in string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(withStdin(context.Background(), strings.NewReader(in)), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestTokenize(t *testing.T) {
	path := byteTokenizer(t)
	tests := []struct {
		name   string
		args   []string
		in     string
		code   int
		stdout string
		stderr string
	}{
		{"encode", nil, `"ab"` + "\n" + `"a\nb<|im_end|>"` + "\n" + `""` + "\n", 0, "[97,98]\n[97,10,98,256]\n[]\n", ""},
		{"encode without final newline", nil, `"é"`, 0, "[195,169]\n", ""},
		{"decode", []string{"-decode"}, "[97,10,98,256]\n[]\n[195,169]\n", 0, `"a\nb<|im_end|>"` + "\n\"\"\n\"é\"\n", ""},
		{"decode half a character", []string{"-decode"}, "[195]\n", 0, `"\ufffd"` + "\n", ""},
		{"not a string", nil, "[1]\n", 1, "", "line 1: want a JSON string"},
		{"not ids", []string{"-decode"}, "[97]\n\"a\"\n", 1, "\"a\"\n", "line 2: want a JSON array of token ids"},
		{"id past the vocabulary", []string{"-decode"}, "[97]\n[99999]\n", 1, "\"a\"\n", "line 2: ids[0] = 99999 is not a token id"},
		{"negative id", []string{"-decode"}, "[97,-1]\n", 1, "", "line 1: ids[1] = -1 is not a token id"},
		{"empty line", nil, "\"a\"\n\n\"b\"\n", 1, "[97]\n", "line 2 is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"tokenize", "-tokenizer", path}, tc.args...)
			code, stdout, stderr := runWithStdin(tc.in, args...)
			if code != tc.code || stdout != tc.stdout || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr containing %q",
					code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

func TestTokenizeUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tokenize"}, 2, "-tokenizer FILE is required"},
		{[]string{"tokenize", "-tokenizer", "x", "extra"}, 2, "-tokenizer FILE is required"},
		{[]string{"tokenize", "-tokenizer", filepath.Join(t.TempDir(), "none.json")}, 1, "no such file"},
	}
	for i, tc := range tests {
		code, _, stderr := runWithStdin("", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("case %d %v: exit %d, stderr %q; want exit %d and %q", i, tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestTokenizeRoundTrip pipes encode output into decode.
func TestTokenizeRoundTrip(t *testing.T) {
	path := byteTokenizer(t)
	texts := "\"x = 1\\n\\ty\"\n\"中文 😀\"\n\"<|im_end|>  \"\n"
	var enc, dec bytes.Buffer
	tok, err := policy.LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := tokenizeLines(context.Background(), tok, false, strings.NewReader(texts), &enc); err != nil {
		t.Fatal(err)
	}
	if err := tokenizeLines(context.Background(), tok, true, &enc, &dec); err != nil {
		t.Fatal(err)
	}
	if dec.String() != texts {
		t.Errorf("round trip gave %q, want %q", dec.String(), texts)
	}
}
