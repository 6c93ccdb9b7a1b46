package trainer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs/arith"
	"github.com/artist-rl/artist/reward"
)

func TestConfigErrorsNameTheKey(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		sets []string
		want []string // substrings of the error
	}{
		{"unknown top key", "sead: 3\n", nil, []string{`unknown key "sead"`, "seed", "run_dir"}},
		{"unknown nested key", "grpo:\n  lrr: 0.1\n", nil, []string{`unknown key "grpo.lrr"`, "valid keys under grpo", "lr"}},
		{"unknown model key", "model:\n  hidden: 3\n", nil, []string{`"model.hidden"`, "hidden_size"}},
		{"bad int", "grpo:\n  steps: many\n", nil, []string{"grpo.steps", "not an integer"}},
		{"bad float", "grpo:\n  lr: fast\n", nil, []string{"grpo.lr", "not a number"}},
		{"bad bool", "grpo:\n  mask_truncated: maybe\n", nil, []string{"grpo.mask_truncated", "true or false"}},
		{"bad duration", "rollout:\n  tool_timeout: soon\n", nil, []string{"rollout.tool_timeout", "duration"}},
		{"mapping expected", "grpo: 3\n", nil, []string{"grpo must be a mapping"}},
		{"negative lr", "grpo:\n  lr: -1\n", nil, []string{"grpo.lr must be > 0"}},
		{"bad agg", "grpo:\n  agg: mean\n", nil, []string{"agg"}},
		{"bad advantage", "grpo:\n  advantage: ppo\n", nil, []string{"grpo.advantage", "drgrpo"}},
		{"bad tool", "tool:\n  kind: perl\n", nil, []string{"tool.kind", "sandbox, python, bfcl", "or disabled"}},
		{"python for bfcl", "task:\n  name: bfcl\ntool:\n  kind: python\n", nil, []string{"tool.kind python", "tool.kind: bfcl"}},
		{"library with python", "tool:\n  kind: python\n  library:\n    path: tools.db\n", nil, []string{"tool.library", "tool.kind: sandbox"}},
		{"python outside /usr", "tool:\n  kind: python\n  python:\n    interpreter: /opt/py/bin/python3\n", nil, []string{"interpreter", "/usr"}}, // and the kinds of families a test registered
		{"sandbox for bfcl", "task:\n  name: bfcl\n", nil, []string{"tool.kind sandbox", "tool.kind: bfcl"}},
		{"art style for bfcl", "task:\n  name: bfcl\ntool:\n  kind: bfcl\nformat:\n  style: art\n", nil, []string{"format.style art", "task bfcl", "format.style tags"}},
		{"bad format style", "format:\n  style: lines\n", nil, []string{"format.style", "tags", "art"}},
		{"bfcl tool for arith", "tool:\n  kind: bfcl\n", nil, []string{"tool.kind bfcl", "tool.kind: sandbox"}},
		{"math rewards for bfcl", "task:\n  name: bfcl\ntool:\n  kind: bfcl\n", nil, []string{"reward.weights", "fc_state"}},
		{"bad bfcl category", "task:\n  name: bfcl\n  bfcl:\n    category: hard\n", nil, []string{"task.bfcl.category", "miss_func"}},
		{"bad bfcl docs", "task:\n  name: bfcl\n  bfcl:\n    docs: html\n", nil, []string{"task.bfcl.docs", "signatures"}},
		{"bad micro batch", "grpo:\n  micro_batch: -1\n", nil, []string{"grpo.micro_batch"}},
		{"bad reference dtype", "model:\n  reference_dtype: fp16\n", nil, []string{"model.reference_dtype", `"fp16"`, "f32 or bf16"}},
		{"set bad reference dtype", "", []string{"model.reference_dtype=half"}, []string{"model.reference_dtype", "f32 or bf16"}},
		{"bad compute dtype", "model:\n  compute_dtype: fp16\n", nil, []string{"model.compute_dtype", `"fp16"`, "f32 or bf16"}},
		{"set bad compute dtype", "", []string{"model.compute_dtype=tf32"}, []string{"model.compute_dtype", `"tf32"`, "f32 or bf16"}},
		{"empty compute dtype", "model:\n  compute_dtype: \"\"\n", nil, []string{"model.compute_dtype", `""`, "f32 or bf16"}},
		{"bad lora base dtype", "model:\n  lora:\n    rank: 4\n    base_dtype: fp16\n", nil, []string{"model.lora.base_dtype", `"fp16"`, "f32 or bf16"}},
		{"empty lora base dtype", "model:\n  lora:\n    rank: 4\n    base_dtype: \"\"\n", nil, []string{"model.lora.base_dtype", `""`, "f32 or bf16"}},
		{"set bad lora base dtype", "", []string{"model.lora.rank=8", "model.lora.base_dtype=int8"}, []string{"model.lora.base_dtype", `"int8"`, "f32 or bf16"}},
		{"bf16 base without lora", "model:\n  lora:\n    base_dtype: bf16\n", nil, []string{"model.lora.base_dtype bf16", "model.lora.rank is 0", "set model.lora.rank", "model.lora.base_dtype: f32", "model.reference_dtype: bf16"}},
		{"set bf16 base without lora", "", []string{"model.lora.base_dtype=bf16"}, []string{"model.lora.base_dtype bf16", "set model.lora.rank"}},
		{"recompute with lora dropout", "model:\n  recompute: true\n  lora:\n    rank: 4\n    dropout: 0.1\n", nil, []string{"model.recompute", "model.lora.dropout"}},
		{"library without sandbox", "tool:\n  kind: disabled\n  library:\n    path: tools.json\n", nil, []string{"tool.library", "tool.kind: sandbox"}},
		{"negative library k", "tool:\n  library:\n    k: -1\n", nil, []string{"tool.library.k"}},
		{"auto-approve without grow", "tool:\n  library:\n    path: tools.db\n    auto_approve: true\n", nil, []string{"tool.library.auto_approve", "grow: true"}},
		{"bad task", "task:\n  name: chess\n", nil, []string{"task.name", "arith"}},
		{"bad template", "prompt:\n  template: llama\n", nil, []string{"prompt.template", "plain or chat"}},
		{"bad reward", "reward:\n  weights:\n    style: 1\n", nil, []string{"reward.weights", "answer"}},
		{"bad tool fraction", "warmstart:\n  tool_fraction: 2\n", nil, []string{"warmstart.tool_fraction", "[0, 1]"}},
		{"bad heads", "model:\n  num_attention_heads: 3\n", nil, []string{"num_attention_heads"}},
		{"set unknown", "", []string{"grpo.stepz=3"}, []string{`-set grpo.stepz=3`, `unknown key "grpo.stepz"`}},
		{"set malformed", "", []string{"grpo.steps"}, []string{"key=value"}},
		{"set bad value", "", []string{"eval.every=-2"}, []string{"eval.every"}},
		{"negative warm-start checkpoints", "checkpoint:\n  warmstart_every: -1\n", nil, []string{"checkpoint.warmstart_every", ">= 0"}},
		{"unknown weight sync", "rollout:\n  weight_sync: vllm\n", nil, []string{"weight_sync", `"vllm"`, "sglang", "vllm-reload"}},
		{"vllm reload without folder", "rollout:\n  servers: [http://a:1]\n  weight_sync: vllm-reload\n", nil, []string{"vllm_model_dir", "rollout.vllm_model_dir: DIR"}},
		{"vllm reload without servers", "", []string{"rollout.weight_sync=vllm-reload", "rollout.vllm_model_dir=/m"}, []string{"rollout.weight_sync", "rollout.servers"}},
		{"vllm folder with sglang", "rollout:\n  vllm_model_dir: /m\n", nil, []string{"vllm_model_dir", "weight_sync: vllm-reload"}},
		{"unknown checkpoint key", "checkpoint:\n  warm_every: 5\n", nil, []string{`"checkpoint.warm_every"`, "warmstart_every"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), "test.yaml", c.sets)
			if err == nil {
				t.Fatalf("no error for %q %v", c.yaml, c.sets)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestSetErrorsNameNoLine: a -set flag is one line the user wrote, so its
// errors carry no YAML line numbers.
func TestSetErrorsNameNoLine(t *testing.T) {
	for _, set := range []string{"grpo.stpes=5", "grpo.steps=many", "tool.kind.x=1"} {
		_, err := Parse(nil, "x.yaml", []string{set})
		if err == nil {
			t.Fatalf("-set %s: no error", set)
		}
		if strings.Contains(err.Error(), "line ") || !strings.Contains(err.Error(), "-set "+set) {
			t.Errorf("-set %s: %q: want the flag named and no line number", set, err)
		}
	}
}

func TestConfigOverrides(t *testing.T) {
	cfg, err := Parse([]byte("grpo:\n  steps: 7\nrollout:\n  tool_timeout: 500ms\n"), "x.yaml",
		[]string{"grpo.lr=0.01", "task.arith.ops=[mul, div]", "seed=9"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GRPO.Steps != 7 || cfg.GRPO.LR != 0.01 || cfg.Seed != 9 || cfg.Rollout.ToolTimeout != 500*time.Millisecond {
		t.Errorf("overrides not applied: %+v %+v seed %d", cfg.GRPO, cfg.Rollout, cfg.Seed)
	}
	if ops := cfg.Task.Section("arith").(*arith.Config).Ops; len(ops) != 2 {
		t.Errorf("task.arith.ops = %v, want [mul div]", ops)
	}
	// Untouched keys keep their defaults.
	def := DefaultConfig()
	if cfg.GRPO.BatchSize != def.GRPO.BatchSize || cfg.WarmStart != def.WarmStart {
		t.Errorf("defaults lost: %+v", cfg)
	}
}

// TestResolvedConfigRoundTrip: the resolved config written into a run
// folder loads back to the same config.
func TestResolvedConfigRoundTrip(t *testing.T) {
	cfg, err := Parse([]byte("seed: 5\nrollout:\n  tool_timeout: 3s\n"), "x.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b, "resolved.yaml", nil)
	if err != nil {
		t.Fatalf("resolved config does not load: %v\n%s", err, b)
	}
	b2, _ := back.Marshal()
	if string(b) != string(b2) {
		t.Errorf("round trip changed the config:\n%s\nvs\n%s", b, b2)
	}
}

func TestShippedConfigsValidate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "configs", "*.yaml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("configs: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join("..", "configs", "tiny-tool-arith.yaml")); err != nil {
		t.Fatal("the README default config is missing")
	}
}

// TestRewardWeightsReplace: a file's weights mapping replaces the default
// set, while -set changes one weight of it.
func TestRewardWeightsReplace(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		sets []string
		want map[string]float64
	}{
		{"default", "", nil, reward.DefaultWeights()},
		{"file replaces", "reward:\n  weights:\n    answer: 2\n", nil, map[string]float64{"answer": 2}},
		{"set merges", "", []string{"reward.weights.answer=3"}, map[string]float64{"answer": 3, "format_relaxed": 1, "format_strict": 1, "tool_success": 1}},
		{"bfcl", "task:\n  name: bfcl\ntool:\n  kind: bfcl\nreward:\n  weights: {fc_state: 1, fc_function: 1, fc_format: 1}\n", nil,
			map[string]float64{"fc_state": 1, "fc_function": 1, "fc_format": 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse([]byte(c.yaml), "x.yaml", c.sets)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Reward.Weights, c.want) {
				t.Errorf("weights %v, want %v", cfg.Reward.Weights, c.want)
			}
		})
	}
}
