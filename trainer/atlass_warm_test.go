package trainer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/atlass"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/rollout"
)

// feedPolicy records the prompt that a Complete feeds its policy first.
type feedPolicy struct {
	rollout.Policy
	fed []int
}

func (p *feedPolicy) NewSession(n, maxLen int) rollout.Session {
	return &feedSession{Session: p.Policy.NewSession(n, maxLen), p: p}
}

type feedSession struct {
	rollout.Session
	p *feedPolicy
}

func (s *feedSession) Step(feed [][]int) ([][]float32, error) {
	if s.p.fed == nil {
		s.p.fed = slices.Clone(feed[0])
	}
	return s.Session.Step(feed)
}

// TestAtlassWarmPhases: with the phases on, the warm start's library
// holds the phase demonstrations of the arith tasks it draws, each the
// tokens the policy is fed when the rollouts ask it that phase (rendered
// and truncated to the context alike), masked but for the reply and its
// EOS; and the warm-start batches draw them at about warm_fraction.
func TestAtlassWarmPhases(t *testing.T) {
	dir := t.TempDir()
	cfg := atlassConfig(t, dir, 2, false)
	cfg.Model.MaxPositionEmbeddings = 512 // the longer conversations are then truncated
	cfg.Tool.Library.Atlass.MaxReplyTokens = 200
	r := scriptedRun(t, cfg, &bytes.Buffer{}, nil)
	ctx := context.Background()
	seqs, err := r.phaseLibrary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) < cfg.WarmStart.Demos*2 {
		t.Fatalf("%d phase sequences of %d tasks, want at least analyze and plan for each", len(seqs), cfg.WarmStart.Demos)
	}
	task := r.Train.Sample(r.taskRNG("atlass/demos", 0), 1)[0]
	truth, _ := r.Family.(family.PhaseTeacher).PhaseTruth(task)
	demos, err := (&atlass.Teacher{Pipeline: &r.atlass.pipe}).Demonstrations(ctx, task, truth)
	if err != nil {
		t.Fatal(err)
	}
	cut := false
	for i, d := range demos {
		pol := &feedPolicy{Policy: modelPolicy{r.Model}}
		chat := r.policyChat(nil)
		chat.Policy, chat.Config.Temperature = pol, 0
		if _, err := chat.Reply(ctx, d.Messages); err != nil {
			t.Fatal(err)
		}
		s := seqs[i]
		n := len(pol.fed)
		if !slices.Equal(s.tokens[:n], pol.fed) {
			t.Errorf("%s: the demonstration's prompt differs from what the phase feeds the policy", d.Phase)
		}
		if zeros := slices.Index(s.mask, 1); zeros != n || slices.Contains(s.mask[n:], 0) {
			t.Errorf("%s: the mask is 0 on the first %d tokens and not 1 on all the rest; the prompt has %d", d.Phase, zeros, n)
		}
		if got := r.Tok.Decode(s.tokens[n:]); got != d.Reply+eosToken {
			t.Errorf("%s: trained on %q, want the reply %q and EOS", d.Phase, got, d.Reply)
		}
		text, _ := r.renderChat(d.Messages)
		cut = cut || len(r.Tok.Encode(text)) > n
	}
	if !cut {
		t.Error("no demonstration of the task was truncated to the context: the test checks no truncation")
	}
	data, err := os.ReadFile(filepath.Join(dir, "phase_demos.jsonl"))
	if err != nil || !strings.Contains(string(data), `"phase":"plan"`) {
		t.Errorf("phase_demos.jsonl: %v, want the plan demonstrations", err)
	}
	phases := 0
	rng := stepRNG(1, "warmstart", 1)
	demoLib, err := r.demos(ctx)
	if err != nil {
		t.Fatal(err)
	}
	isPhase := map[string]bool{}
	for _, s := range seqs {
		isPhase[r.Tok.Decode(s.tokens)] = true
	}
	const draws = 400
	for range draws {
		tokens, _, err := r.warmSequence(ctx, demoLib, seqs, rng)
		if err != nil {
			t.Fatal(err)
		}
		if isPhase[r.Tok.Decode(tokens)] {
			phases++
		}
	}
	if f := float64(phases) / draws; f < 0.4 || f > 0.6 {
		t.Errorf("%.2f of the warm-start sequences are phase demonstrations, want about warm_fraction %v", f, cfg.Tool.Library.Atlass.WarmFraction)
	}
}

// noTeacher is a family that does not know the phases' replies.
type noTeacher struct{ family.Family }

func (noTeacher) Name() string { return "noteacher" }

// TestAtlassWarmNeedsTeacher: phase demonstrations from a family without
// their ground truth are refused with the key to set.
func TestAtlassWarmNeedsTeacher(t *testing.T) {
	r := &Run{Cfg: DefaultConfig(), Family: noTeacher{}}
	r.Cfg.Tool.Library.Atlass.Enabled = true
	if err := r.checkPhaseTeacher(); err == nil || !strings.Contains(err.Error(), "warm_fraction 0.5") || !strings.Contains(err.Error(), "set it to 0") {
		t.Errorf("checkPhaseTeacher: %v, want the key and its fix", err)
	}
	r.Cfg.Tool.Library.Atlass.WarmFraction = 0
	if err := r.checkPhaseTeacher(); err != nil {
		t.Errorf("warm_fraction 0: %v", err)
	}
}
