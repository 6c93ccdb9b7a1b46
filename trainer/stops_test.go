package trainer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// instructTokenizer writes a byte-level tokenizer folder shaped like
// Qwen2.5-Instruct's: tokenizer_config.json names <|im_end|> as eos_token
// (not the <|endoftext|> fallback), generation_config.json stops on both,
// and chat_template.jinja holds a chat template. It returns the
// tokenizer.json path and the two ids.
func instructTokenizer(t *testing.T, f format.Format) (path string, imEnd, endOfText int) {
	t.Helper()
	dir := t.TempDir()
	specials := append(f.Tags(), "<|endoftext|>", "<|im_end|>")
	if err := policy.WriteByteLevelTokenizer(dir, specials, "<|im_end|>"); err != nil {
		t.Fatal(err)
	}
	endOfText, imEnd = 256+len(specials)-2, 256+len(specials)-1
	gen := fmt.Appendf(nil, `{"bos_token_id": 0, "eos_token_id": [%d, %d], "temperature": 0.7}`, imEnd, endOfText)
	if err := os.WriteFile(filepath.Join(dir, policy.GenerationConfigFile), gen, 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl := []byte("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}")
	if err := os.WriteFile(filepath.Join(dir, policy.ChatTemplateFile), tmpl, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, policy.TokenizerJSONFile), imEnd, endOfText
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

// TestCheckpointCarriesStopIDs: a run trained with an Instruct-style
// tokenizer folder writes its tokenizer_config.json and
// generation_config.json into its checkpoints; the checkpoint then loads
// with the same EOS and stop ids for training (Setup), eval and sample
// (OpenCheckpoint) and serve (checkpoint.Open), and rollouts stop on the
// second stop id.
func TestCheckpointCarriesStopIDs(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t, run)
	path, imEnd, endOfText := instructTokenizer(t, cfg.Format)
	cfg.Tokenizer = path
	cfg.WarmStart.Steps, cfg.GRPO.Steps = 4, 0
	trainedRun(t, cfg)
	ckpt := filepath.Join(run, "checkpoints", checkpoint.StepDir(0))
	for _, f := range []string{policy.TokenizerConfigFile, policy.GenerationConfigFile, policy.ChatTemplateFile} {
		src, _ := os.ReadFile(filepath.Join(filepath.Dir(path), f))
		got, err := os.ReadFile(filepath.Join(ckpt, f))
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("checkpoint %s = %q, %v; want the tokenizer folder's %q", f, got, err, src)
		}
	}
	want := []int{imEnd, endOfText}
	fromCkpt := cfg
	fromCkpt.RunDir, fromCkpt.Init, fromCkpt.Tokenizer = t.TempDir(), ckpt, filepath.Join(ckpt, policy.TokenizerJSONFile)
	loaders := []struct {
		name string
		load func() (*policy.Tokenizer, error)
	}{
		{"train (Setup)", func() (*policy.Tokenizer, error) {
			r, err := Setup(context.Background(), fromCkpt, nil)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return r.Tok, nil
		}},
		{"eval and sample (OpenCheckpoint)", func() (*policy.Tokenizer, error) {
			r, err := OpenCheckpoint(context.Background(), ckpt, nil, nil)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return r.Tok, nil
		}},
		{"serve (checkpoint.Open)", func() (*policy.Tokenizer, error) {
			ck, err := checkpoint.Open(ckpt, nil)
			if err != nil {
				return nil, err
			}
			return ck.Tok, nil
		}},
	}
	for _, l := range loaders {
		t.Run(l.name, func(t *testing.T) {
			tok, err := l.load()
			if err != nil {
				t.Fatal(err)
			}
			if tok.EOS() != imEnd || !slices.Equal(tok.StopIDs(), want) {
				t.Errorf("EOS %d stops %v, want %d %v", tok.EOS(), tok.StopIDs(), imEnd, want)
			}
		})
	}
	t.Run("resume keeps the stop ids", func(t *testing.T) {
		if _, err := Train(context.Background(), cfg, nil); err != nil {
			t.Fatalf("resuming the run with the same tokenizer folder: %v", err)
		}
	})
	t.Run("resume refuses other stop ids", func(t *testing.T) {
		gen := filepath.Join(filepath.Dir(path), policy.GenerationConfigFile)
		orig, _ := os.ReadFile(gen)
		defer os.WriteFile(gen, orig, 0o644)
		os.WriteFile(gen, fmt.Appendf(nil, `{"eos_token_id": %d}`, imEnd), 0o644)
		_, err := Train(context.Background(), cfg, nil)
		if err == nil || !strings.Contains(err.Error(), "stops on ids") {
			t.Fatalf("err = %v, want a refusal naming the stop ids", err)
		}
	})
	t.Run("rollouts stop on the second id", func(t *testing.T) {
		r, err := OpenCheckpoint(context.Background(), ckpt, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		rc := r.Cfg.Rollout
		rc.GroupSize, rc.Temperature = 1, 0
		e := r.Engine(rc)
		e.Policy = peakPolicy{vocab: r.Model.Config.VocabSize, id: endOfText}
		trajs, err := e.Run(context.Background(), r.Heldout[:1], nil)
		if err != nil {
			t.Fatal(err)
		}
		if tr := trajs[0]; tr.Stop != rollout.StopEOS || tr.ModelTokens() != 1 || tr.Response != "<|endoftext|>" {
			t.Errorf("stop %s after %d tokens, response %q; want eos after the one <|endoftext|>", tr.Stop, tr.ModelTokens(), tr.Response)
		}
	})
	t.Run("an older checkpoint without the side files resumes with a warning", func(t *testing.T) {
		for _, f := range []string{policy.TokenizerConfigFile, policy.GenerationConfigFile, policy.ChatTemplateFile, checkpoint.ManifestFile} {
			if err := os.Remove(filepath.Join(ckpt, f)); err != nil {
				t.Fatal(err)
			}
		}
		var out bytes.Buffer
		if _, err := Train(context.Background(), cfg, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "an older checkpoint") {
			t.Errorf("no warning about the older checkpoint:\n%s", out.String())
		}
	})
}

// TestBuiltTokenizerCheckpointFiles: the tokenizer a run builds itself is
// saved with a tokenizer_config.json naming <|endoftext|> and a
// generation_config.json stopping on it, and loads back the same.
func TestBuiltTokenizerCheckpointFiles(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t, run)
	cfg.WarmStart.Steps, cfg.GRPO.Steps = 2, 0
	r, err := Setup(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	ck, err := checkpoint.Open(filepath.Join(run, "checkpoints", checkpoint.StepDir(0)), nil)
	if err != nil {
		t.Fatal(err)
	}
	eos, _ := r.Tok.TokenID(eosToken)
	if ck.Tok.EOS() != eos || !slices.Equal(ck.Tok.StopIDs(), []int{eos}) || !slices.Equal(r.Tok.StopIDs(), []int{eos}) {
		t.Errorf("checkpoint EOS %d stops %v, run stops %v; want %d alone", ck.Tok.EOS(), ck.Tok.StopIDs(), r.Tok.StopIDs(), eos)
	}
}
