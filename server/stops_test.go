package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
	"github.com/artist-rl/artist/trainer"
)

// instructCheckpoint trains a tiny run whose tokenizer folder is shaped
// like Qwen2.5-Instruct's (eos_token <|im_end|>, generation_config.json
// stopping on <|im_end|> and <|endoftext|>) and returns its step-000000
// folder and the two stop ids.
func instructCheckpoint(t *testing.T) (dir string, imEnd, endOfText int) {
	t.Helper()
	tokDir := t.TempDir()
	specials := append(format.DefaultFormat().Tags(), "<|endoftext|>", "<|im_end|>")
	if err := policy.WriteByteLevelTokenizer(tokDir, specials, "<|im_end|>"); err != nil {
		t.Fatal(err)
	}
	endOfText, imEnd = 256+len(specials)-2, 256+len(specials)-1
	gen := fmt.Sprintf(`{"eos_token_id": [%d, %d]}`, imEnd, endOfText)
	if err := os.WriteFile(filepath.Join(tokDir, policy.GenerationConfigFile), []byte(gen), 0o644); err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	if _, err := trainRun(run, "tokenizer="+filepath.Join(tokDir, policy.TokenizerJSONFile), "grpo.steps=0", "warmstart.steps=2"); err != nil {
		t.Fatalf("train: %v", err)
	}
	return filepath.Join(run, "checkpoints", "step-000000"), imEnd, endOfText
}

// peakPolicy always puts its mass on one token.
type peakPolicy struct{ vocab, id int }

func (p peakPolicy) NewSession(n, maxLen int) rollout.Session { return p }

func (p peakPolicy) Context() int { return 0 }

func (p peakPolicy) Step(feed [][]int) ([][]float32, error) {
	out := make([][]float32, len(feed))
	for i, f := range feed {
		if len(f) > 0 {
			out[i] = make([]float32, p.vocab)
			out[i][p.id] = 10
		}
	}
	return out, nil
}

// TestServeStopsOnEveryStopID: serve loads the checkpoint's stop ids as
// eval does, and a completion ends on either of them.
func TestServeStopsOnEveryStopID(t *testing.T) {
	dir, imEnd, endOfText := instructCheckpoint(t)
	ck, err := checkpoint.Open(dir, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r, err := trainer.OpenCheckpoint(context.Background(), dir, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	want := []int{imEnd, endOfText}
	if !slices.Equal(ck.Tok.StopIDs(), want) || !slices.Equal(r.Tok.StopIDs(), want) {
		t.Fatalf("serve stops on %v, eval on %v; want both %v", ck.Tok.StopIDs(), r.Tok.StopIDs(), want)
	}
	letter, _ := ck.Tok.TokenID("a")
	cases := []struct {
		name   string
		id     int
		finish string
		tokens int
	}{
		{"EOS", imEnd, "stop", 1},
		{"second stop id", endOfText, "stop", 1},
		{"other token", letter, "length", 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := New(ck.Model, ck.Tok, "instruct", 1)
			h.current().policy = peakPolicy{vocab: ck.Model.Config.VocabSize, id: c.id}
			srv := httptest.NewServer(h)
			defer srv.Close()
			code, out := post(t, srv.URL+"/v1/completions", `{"prompt": "q\n", "max_tokens": 5, "temperature": 0}`)
			if code != http.StatusOK || len(out.Choices) != 1 {
				t.Fatalf("status %d, %+v", code, out)
			}
			if ch := out.Choices[0]; ch.FinishReason != c.finish || out.Usage.CompletionTokens != c.tokens {
				t.Errorf("finish %s after %d tokens (text %q), want %s after %d", ch.FinishReason, out.Usage.CompletionTokens, ch.Text, c.finish, c.tokens)
			}
		})
	}
}

// TestServeRefusesDamagedCheckpoint: Open (which serve calls before it
// listens) checks the manifest and names the damaged file.
func TestServeRefusesDamagedCheckpoint(t *testing.T) {
	src, _, _ := instructCheckpoint(t)
	path := filepath.Join(src, "model.safetensors")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-3] ^= 1
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(src, "", 1, Limits{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "model.safetensors") || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("serve: err = %v, want a refusal naming model.safetensors", err)
	}
}
