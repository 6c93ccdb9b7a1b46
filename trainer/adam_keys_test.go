package trainer

import (
	"strings"
	"testing"
)

// TestAdamKeys: the optimizer and advantage constants are config keys
// whose defaults are the values the runs used before (0.9, 0.99, 1e-8;
// adv_eps 1e-6), set values reach the optimizers, and bad values name
// their key.
func TestAdamKeys(t *testing.T) {
	d := DefaultConfig()
	want := AdamConstants{Beta1: 0.9, Beta2: 0.99, Eps: 1e-8}
	if d.GRPO.adam() != want || d.WarmStart.adam() != want || d.GRPO.AdvEps != 1e-6 {
		t.Fatalf("defaults grpo %+v warmstart %+v adv_eps %v, want %+v and 1e-6", d.GRPO.adam(), d.WarmStart.adam(), d.GRPO.AdvEps, want)
	}
	cfg, err := Parse([]byte("grpo:\n  adam_beta1: 0.8\n  adam_eps: 1.0e-6\n  adv_eps: 1.0e-4\nwarmstart:\n  adam_beta2: 0.999\n"), "x.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := cfg.GRPO.adam().adamW(0, 1); g.Beta1 != 0.8 || g.Beta2 != 0.99 || g.Eps != 1e-6 || cfg.GRPO.AdvEps != 1e-4 {
		t.Errorf("grpo optimizer %+v adv_eps %v", g, cfg.GRPO.AdvEps)
	}
	if w := cfg.WarmStart.adam().adamW(0, 1); w.Beta1 != 0.9 || w.Beta2 != 0.999 || w.Eps != 1e-8 {
		t.Errorf("warm-start optimizer %+v", w)
	}
	for _, c := range []struct{ set, key string }{
		{"grpo.adam_beta1=1", "grpo.adam_beta1"},
		{"warmstart.adam_beta2=-0.1", "warmstart.adam_beta2"},
		{"grpo.adam_eps=0", "grpo.adam_eps"},
		{"grpo.adv_eps=0", "grpo.adv_eps"},
	} {
		if _, err := Parse(nil, "x.yaml", []string{c.set}); err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("-set %s: error %v, want one naming %s", c.set, err, c.key)
		}
	}
}
