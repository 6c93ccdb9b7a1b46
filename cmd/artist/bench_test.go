package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// benchConfigJSON is a model small enough to time in a test.
const benchConfigJSON = `{"vocab_size": 50, "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 1,
	"num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 32,
	"rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": true}`

// benchFixtures writes the config and a checkpoint of that model.
func benchFixtures(t *testing.T) (config, checkpoint string) {
	t.Helper()
	dir := t.TempDir()
	config = filepath.Join(dir, "config.json")
	if err := os.WriteFile(config, []byte(benchConfigJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	var cfg policy.Config
	if err := json.Unmarshal([]byte(benchConfigJSON), &cfg); err != nil {
		t.Fatal(err)
	}
	m, err := policy.New(cfg, rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	checkpoint = filepath.Join(dir, "ckpt")
	if err := policy.SaveModel(checkpoint, m); err != nil {
		t.Fatal(err)
	}
	return config, checkpoint
}

func TestBench(t *testing.T) {
	config, ckpt := benchFixtures(t)
	sel, err := policy.DefaultBackend()
	if err != nil {
		t.Fatal(err)
	}
	small := []string{"-batch", "2", "-seq", "12", "-new-tokens", "3", "-steps", "1", "-warmup", "0"}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"model config", append([]string{"bench", "-model-config", config}, small...)},
		{"checkpoint", append([]string{"bench", "-checkpoint", ckpt, "-decode-batch", "3", "-prompt", "5"}, small...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var rep benchReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
			}
			if rep.Backend != sel.Backend.Info().Name || rep.Threads < 1 || rep.Params == 0 {
				t.Errorf("report %+v: want backend %q, threads and params", rep, sel.Backend.Info().Name)
			}
			if !(rep.TrainTokensPerS > 0 && rep.PrefillTokensPerS > 0 && rep.DecodeTokensPerS > 0 && rep.PeakRSSMiB > 0) {
				t.Errorf("report %+v: want positive speeds and memory", rep)
			}
			if !strings.Contains(stderr, "artist bench: backend "+rep.Backend) {
				t.Errorf("stderr does not name the backend: %q", stderr)
			}
		})
	}
}

func TestBenchErrors(t *testing.T) {
	config, ckpt := benchFixtures(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no model", []string{"bench"}, 2, "exactly one of -checkpoint DIR and -model-config FILE"},
		{"two models", []string{"bench", "-checkpoint", ckpt, "-model-config", config}, 2, "exactly one of"},
		{"short sequences", []string{"bench", "-model-config", config, "-seq", "1"}, 2, "-seq is 1; it must be at least 2"},
		{"no steps", []string{"bench", "-model-config", config, "-steps", "0"}, 2, "-steps is 0"},
		{"too long for the model", []string{"bench", "-model-config", config, "-seq", "16", "-new-tokens", "20"}, 1, "max_position_embeddings"},
		{"missing config", []string{"bench", "-model-config", filepath.Join(t.TempDir(), "none.json")}, 1, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestBenchBackendChoice runs artist bench in a child process (this test
// binary, running TestBenchHelper) where OpenBLAS is absent: the default
// falls back to pure Go and says why, a forced OpenBLAS is an error that
// says what to install.
func TestBenchBackendChoice(t *testing.T) {
	if os.Getenv("ARTIST_BENCH_HELPER") != "" {
		t.Skip("inside the helper process")
	}
	config, _ := benchFixtures(t)
	absent := cpu.OpenBLASLibraryEnv + "=libopenblas-not-installed.so.0"
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"automatic", []string{"ARTIST_BACKEND=", absent}, []string{`"backend":"go"`, "libopenblas-not-installed.so.0", "apt-get install libopenblas0-pthread"}},
		{"forced", []string{"ARTIST_BACKEND=openblas", absent}, []string{"exit 1", "ARTIST_BACKEND=openblas", "apt-get install libopenblas0-pthread"}},
		{"forced pure Go", []string{"ARTIST_BACKEND=go"}, []string{`"backend":"go"`, "forced by ARTIST_BACKEND"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBenchHelper$", "-test.v")
			cmd.Env = append(append(os.Environ(), "ARTIST_BENCH_HELPER="+config), tc.env...)
			b, _ := cmd.CombinedOutput()
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("output does not mention %q:\n%s", w, b)
				}
			}
		})
	}
}

// TestBenchHelper is the child process of TestBenchBackendChoice.
func TestBenchHelper(t *testing.T) {
	config := os.Getenv("ARTIST_BENCH_HELPER")
	if config == "" {
		t.Skip("run by TestBenchBackendChoice")
	}
	code, stdout, stderr := runCLI("bench", "-model-config", config, "-batch", "1", "-seq", "8", "-new-tokens", "2", "-steps", "1", "-warmup", "0")
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
}

// TestBenchGRPO checks the phase-by-phase report: every phase in order,
// timed, with a peak RSS that never falls.
func TestBenchGRPO(t *testing.T) {
	for _, tc := range []struct{ lora, micro, ref string }{{"0", "0", ""}, {"4", "2", ""}, {"0", "0", "f32"}, {"4", "0", "bf16"}} {
		t.Run("lora-rank="+tc.lora+",reference-dtype="+tc.ref, func(t *testing.T) { benchGRPOReport(t, tc.lora, tc.micro, tc.ref) })
	}
}

func benchGRPOReport(t *testing.T, loraRank, micro, refDType string) {
	config, _ := benchFixtures(t)
	code, stdout, stderr := runCLI("bench", "-model-config", config, "-grpo", "-seq", "11", "-decode-batch", "3", "-prompt", "6", "-new-tokens", "5",
		"-lora-rank", loraRank, "-micro-batch", micro, "-reference-dtype", refDType)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep benchReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	var names []string
	last := 0.0
	for _, p := range rep.Phases {
		names = append(names, p.Name)
		if p.Seconds < 0 || p.PeakRSSMiB < last || p.PeakRSSMiB <= 0 {
			t.Errorf("phase %+v: want a time and a peak RSS of at least %.1f MiB", p, last)
		}
		last = p.PeakRSSMiB
	}
	if got, want := strings.Join(names, ","), "model,rollout,ref_logprobs,update"; got != want {
		t.Errorf("phases %s, want %s", got, want)
	}
	if rep.TrainTokensPerS != 0 {
		t.Errorf("-grpo also measured the training medians: %+v", rep)
	}
	if fmt.Sprint(rep.LoRARank) != loraRank || fmt.Sprint(rep.MicroBatch) != micro {
		t.Errorf("lora_rank %d, micro_batch %d, want %s and %s", rep.LoRARank, rep.MicroBatch, loraRank, micro)
	}
	if loraRank != "0" && !strings.Contains(stderr, "LoRA adapters (rank "+loraRank+")") {
		t.Errorf("the memory plan does not count the adapters:\n%s", stderr)
	}
	if rep.ReferenceDType != refDType {
		t.Errorf("reference_dtype %q, want %q", rep.ReferenceDType, refDType)
	}
	if want := map[string]string{"f32": "reference model  ", "bf16": "reference model (bf16 layers)"}[refDType]; want != "" && !strings.Contains(stderr, want) {
		t.Errorf("the memory plan does not count the %s reference copy:\n%s", refDType, stderr)
	}
}
