package rollout

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string // "" means valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"greedy", func(c *Config) { c.Temperature = 0 }, ""},
		{"no tool calls", func(c *Config) { c.MaxToolCalls = 0 }, ""},
		{"empty group", func(c *Config) { c.GroupSize = 0 }, "group_size must be at least 1"},
		{"no response", func(c *Config) { c.MaxResponseTokens = 0 }, "max_response_tokens"},
		{"negative calls", func(c *Config) { c.MaxToolCalls = -1 }, "max_tool_calls"},
		{"tiny results", func(c *Config) { c.MaxResultTokens = 3 }, "max_result_tokens"},
		{"negative temperature", func(c *Config) { c.Temperature = -1 }, "temperature"},
		{"NaN temperature", func(c *Config) { c.Temperature = math.NaN() }, "temperature"},
		{"top_p zero", func(c *Config) { c.TopP = 0 }, "top_p must be in (0, 1]"},
		{"top_p above one", func(c *Config) { c.TopP = 1.5 }, "top_p"},
		{"no timeout", func(c *Config) { c.ToolTimeout = 0 }, "tool_timeout"},
		{"vllm reload", func(c *Config) { c.WeightSync, c.VLLMModelDir = SyncVLLMReload, "/models/m" }, ""},
		{"zero weight_sync is sglang", func(c *Config) { c.WeightSync = "" }, ""},
		{"vllm reload without folder", func(c *Config) { c.WeightSync = SyncVLLMReload }, "weight_sync: vllm-reload needs vllm_model_dir"},
		{"folder without vllm reload", func(c *Config) { c.VLLMModelDir = "/models/m" }, "set weight_sync: vllm-reload"},
		{"unknown weight_sync", func(c *Config) { c.WeightSync = "vllm" }, "weight_sync \"vllm\" is unknown: use sglang"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.edit(&cfg)
			err := cfg.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Validate() = %v, want %q", err, c.want)
			}
		})
	}
	t.Run("all problems at once", func(t *testing.T) {
		err := Config{}.Validate()
		for _, key := range []string{"group_size", "max_response_tokens", "max_result_tokens", "top_p", "tool_timeout"} {
			if err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("zero config: error %v does not name %s", err, key)
			}
		}
	})
}

func TestConfigYAML(t *testing.T) {
	decode := func(src string) (Config, error) {
		cfg := DefaultConfig()
		dec := yaml.NewDecoder(strings.NewReader(src))
		dec.KnownFields(true)
		return cfg, dec.Decode(&cfg)
	}
	cfg, err := decode("group_size: 4\ntool_timeout: 500ms\ntemperature: 0\n")
	want := DefaultConfig()
	want.GroupSize, want.ToolTimeout, want.Temperature = 4, 500*time.Millisecond, 0
	if err != nil || !reflect.DeepEqual(cfg, want) {
		t.Fatalf("decoded %+v (%v), want %+v", cfg, err, want)
	}
	if _, err := decode("grop_size: 4\n"); err == nil {
		t.Fatal("an unknown key decoded")
	}
	var buf bytes.Buffer
	if err := yaml.NewEncoder(&buf).Encode(DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	if back, err := decode(buf.String()); err != nil || !reflect.DeepEqual(back, DefaultConfig()) {
		t.Fatalf("defaults did not round-trip through %q: %+v %v", buf.String(), back, err)
	}
}
