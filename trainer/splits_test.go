package trainer

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/rollout"
)

// splitTrajectory is a trajectory the chat template split once: a first
// sequence of a 2-token prompt, 3 sampled tokens and a user turn, then a
// second from a 4-token prompt with 2 sampled tokens.
func splitTrajectory() *rollout.Trajectory {
	first := &rollout.Trajectory{PromptLen: 2}
	first.Append([]int{1, 2}, rollout.KindPrompt, nil)
	first.Append([]int{3, 4, 5}, rollout.KindModel, []float32{-1, -2, -3})
	first.Append([]int{6}, rollout.KindUser, nil)
	t := &rollout.Trajectory{PromptLen: 4, Stop: rollout.StopEOS, Splits: []rollout.Sequence{{
		Tokens: first.Tokens, Kinds: first.Kinds, Mask: first.Mask, LogProbs: first.LogProbs, PromptLen: first.PromptLen}}}
	t.Append([]int{1, 2, 5, 6}, rollout.KindPrompt, nil)
	t.Append([]int{7, 8}, rollout.KindModel, []float32{-4, -5})
	return t
}

// TestSplitTrajectoryRows: in componentBatch with rollout 1 split in
// two, the step's advantages give two rows for it, each sequence's own
// tokens with rollout 1's advantage, the other rollouts one row each,
// and the estimators count every sequence's loss tokens; a data-parallel
// rank owns the rows of the trajectories it rolled out.
func TestSplitTrajectoryRows(t *testing.T) {
	for _, est := range []string{"grpo", "reinforce_pp"} {
		r, b := componentBatch()
		r.Cfg.GRPO.Advantage = est
		_, plain, err := r.advantages(b, Metrics{})
		if err != nil {
			t.Fatal(err)
		}
		split := splitTrajectory()
		b.trajs[1] = split
		d := newDist(nil)
		d.mine[split] = true
		r.red = d
		if n := r.lossTokens([]*rollout.Trajectory{split}); n[0] != 5 {
			t.Errorf("%s: the split trajectory has %d loss tokens, want 5 (3 + 2)", est, n[0])
		}
		rows, adv, err := r.advantages(b, Metrics{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 9 || len(adv) != 9 {
			t.Fatalf("%s: %d rows, %d advantages, want 9", est, len(rows), len(adv))
		}
		if !slices.Equal(rows[1].Tokens, split.Splits[0].Tokens) || !slices.Equal(rows[2].Tokens, split.Tokens) || rows[0] != b.trajs[0] || rows[3] != b.trajs[2] {
			t.Errorf("%s: rows 0-3 are not rollout 0, rollout 1's two sequences, rollout 2", est)
		}
		if adv[1] != adv[2] || adv[0] != plain[0] && est == "grpo" {
			t.Errorf("%s: advantages %v: want rows 1 and 2 equal (rollout 1's)", est, adv)
		}
		if got := d.own(rows); !slices.Equal(got, []int{1, 2}) {
			t.Errorf("%s: the rank owns rows %v, want the split trajectory's 1 and 2", est, got)
		}
	}
}

// TestNoteTemplateSplits: the run log says once per run that the chat
// template split conversations, naming the template, how many and the
// key.
func TestNoteTemplateSplits(t *testing.T) {
	var out bytes.Buffer
	r := &Run{out: &out, Chat: &rollout.Chat{Template: chat.Fallback(chat.SpecialTokens{EOS: "<|im_end|>"})}}
	trajs := []*rollout.Trajectory{splitTrajectory(), {}}
	r.noteTemplateSplits(trajs[1:])
	if out.Len() != 0 {
		t.Fatalf("a batch without splits logged %q", out.String())
	}
	r.noteTemplateSplits(trajs)
	r.noteTemplateSplits(trajs)
	log := out.String()
	if strings.Count(log, "trainer: note:") != 1 || !strings.Contains(log, "1 of 2 conversations") || !strings.Contains(log, "rollout.template_drift: split") || !strings.Contains(log, "2 sequences") {
		t.Errorf("run log %q: want one note naming 1 of 2 conversations, the key and 2 sequences", log)
	}
}

// TestTemplateDriftResume: rollout.template_drift changes which sequences
// train, so a resume with another value is refused; a run recorded
// before the key existed (no template_drift) reads as split, the
// default, and resumes under it.
func TestTemplateDriftResume(t *testing.T) {
	if _, ok := resumeKeys["rollout.template_drift"]; ok {
		t.Fatal("rollout.template_drift is resume-safe, but it changes what trains")
	}
	old, err := parseRecorded([]byte("rollout:\n  group_size: 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		set  string
		want string // the diff; "" for none
	}{
		{"rollout.template_drift=split", ""},
		{"rollout.template_drift=fail", "rollout.template_drift: run has split, config says fail"},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		if err := applySet(&cfg, c.set); err != nil {
			t.Fatal(err)
		}
		diffs, err := resumeDiff(old, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range diffs {
			got = append(got, d.String())
		}
		if strings.Join(got, "\n") != c.want {
			t.Errorf("%s: diff %q, want %q", c.set, got, c.want)
		}
	}
}
