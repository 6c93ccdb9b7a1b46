package arith_test

import (
	"path/filepath"
	"testing"

	"github.com/artist-rl/artist/envs/arith"
	_ "github.com/artist-rl/artist/envs/builtin"
	"github.com/artist-rl/artist/trainer"
)

// TestConfigLoads: the shipped config selects this family, validates, and
// so do its ablations (tool disabled, tool output in the loss).
func TestChainConfigLoads(t *testing.T) {
	path := filepath.Join("..", "..", "configs", "tiny-tool-multistep.yaml")
	for _, sets := range [][]string{nil, {"tool.kind=disabled"}, {"grpo.mask_tool_output=false"}, {"task.multistep.steps=[3]"}} {
		cfg, err := trainer.Load(path, sets)
		if err != nil {
			t.Fatalf("%v: %v", sets, err)
		}
		sec, ok := cfg.Task.Section(cfg.Task.Name).(*arith.ChainConfig)
		if cfg.Task.Name != arith.MultiStepName || !ok {
			t.Fatalf("%v: task %q section %T", sets, cfg.Task.Name, cfg.Task.Section(cfg.Task.Name))
		}
		if err := sec.Validate(); err != nil {
			t.Errorf("%v: %v", sets, err)
		}
		if cfg.Rollout.MaxToolCalls < arith.MaxSteps {
			t.Errorf("%v: rollout.max_tool_calls %d cannot hold one call per step", sets, cfg.Rollout.MaxToolCalls)
		}
	}
	if _, err := trainer.Load(path, []string{"task.multistep.digits.min=0"}); err == nil {
		t.Error("a bad section loads")
	}
}
