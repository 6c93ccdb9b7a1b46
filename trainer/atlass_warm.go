package trainer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"

	"github.com/artist-rl/artist/atlass"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/rollout"
)

// phaseSeq is a phase demonstration as a warm-start sequence: the
// conversation's tokens as the policy is fed them (mask 0), then the
// reply and EOS (mask 1).
type phaseSeq struct {
	tokens []int
	mask   []uint8
}

// phaseRecord is one line of phase_demos.jsonl: a demonstration and how
// long it is in the run's tokens.
type phaseRecord struct {
	Task         string `json:"task"`
	Phase        string `json:"phase"`
	PromptTokens int    `json:"prompt_tokens"` // the rendered conversation
	Cut          int    `json:"cut"`           // tokens dropped from its start to fit the context
	ReplyTokens  int    `json:"reply_tokens"`  // the reply with its EOS
	Fits         bool   `json:"fits"`          // within max_reply_tokens; only those are trained on
	Reply        string `json:"reply"`
}

// checkPhaseTeacher refuses phase demonstrations from a family that
// cannot write them.
func (r *Run) checkPhaseTeacher() error {
	if _, ok := r.Family.(family.PhaseTeacher); !ok && r.Cfg.Tool.Library.Atlass.WarmFraction > 0 && r.Cfg.WarmStart.Steps > 0 {
		return fmt.Errorf("trainer: tool.library.atlass.warm_fraction %v: task family %s does not know the phases' replies (family.PhaseTeacher): set it to 0",
			r.Cfg.Tool.Library.Atlass.WarmFraction, r.Family.Name())
	}
	return nil
}

// phaseLibrary writes the warm-start demonstrations of the phases
// (tool.library.atlass.warm_fraction), or nil when there are none: for
// warmstart.demos training tasks drawn from the stream atlass/demos,
// the family's ground truth made into the phases' conversations and
// replies against the run's tool database (atlass.Teacher), each encoded
// as phaseChat feeds the policy. A reply longer than max_reply_tokens,
// which the policy could not write, is left out and counted. The
// demonstrations are saved as phase_demos.jsonl and summed up in the log.
func (r *Run) phaseLibrary(ctx context.Context) ([]phaseSeq, error) {
	if r.atlass == nil || r.atlass.cfg.WarmFraction == 0 {
		return nil, nil
	}
	if err := r.checkPhaseTeacher(); err != nil {
		return nil, err
	}
	teach := r.Family.(family.PhaseTeacher)
	teacher := atlass.Teacher{Pipeline: &r.atlass.pipe}
	chat := r.policyChat(nil)
	var seqs []phaseSeq
	var lines strings.Builder
	var recs []phaseRecord
	for _, task := range r.Train.Sample(r.taskRNG("atlass/demos", 0), r.Cfg.WarmStart.Demos) {
		truth, ok := teach.PhaseTruth(task)
		if !ok {
			return nil, fmt.Errorf("trainer: phase demonstrations: family %s has no ground truth for task %s", r.Family.Name(), task.ID)
		}
		demos, err := teacher.Demonstrations(ctx, task, truth)
		if err != nil {
			return nil, fmt.Errorf("trainer: phase demonstrations: %w", err)
		}
		for _, d := range demos {
			seq, rec, err := r.encodePhaseDemo(chat, d)
			if err != nil {
				return nil, err
			}
			if rec.Fits {
				seqs = append(seqs, seq)
			}
			recs = append(recs, rec)
			line, _ := json.Marshal(rec)
			lines.Write(line)
			lines.WriteByte('\n')
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(r.Cfg.RunDir, "phase_demos.jsonl"), []byte(lines.String()), 0o644); err != nil {
		return nil, fmt.Errorf("trainer: phase demonstrations: %w", err)
	}
	r.logPhaseLibrary(recs)
	if len(seqs) == 0 && len(recs) > 0 {
		return nil, fmt.Errorf("trainer: no phase demonstration's reply fits tool.library.atlass.max_reply_tokens %d: raise it (see phase_demos.jsonl)", r.atlass.cfg.MaxReplyTokens)
	}
	return seqs, nil
}

// encodePhaseDemo encodes d as chat feeds the policy: the prompt is
// chat.Prompt's tokens of the conversation (truncated to the context as
// in the rollouts), masked; the reply is its tokens and EOS, which the
// loss is on.
func (r *Run) encodePhaseDemo(chat *atlass.PolicyChat, d atlass.PhaseDemo) (phaseSeq, phaseRecord, error) {
	prompt, cut, err := chat.Prompt(d.Messages)
	if err != nil {
		return phaseSeq{}, phaseRecord{}, fmt.Errorf("trainer: phase demonstration of task %s: %w", d.Task.ID, err)
	}
	reply := append(r.Tok.Encode(d.Reply), r.Tok.EOS())
	var t rollout.Trajectory
	t.Append(prompt, rollout.KindPrompt, nil)
	t.Append(reply, rollout.KindModel, nil)
	rec := phaseRecord{Task: d.Task.ID, Phase: d.Phase, PromptTokens: len(prompt) + cut, Cut: cut, ReplyTokens: len(reply),
		Fits: len(reply) <= r.atlass.cfg.MaxReplyTokens, Reply: d.Reply}
	return phaseSeq{tokens: t.Tokens, mask: t.Mask}, rec, nil
}

// logPhaseLibrary writes per phase how many demonstrations there are
// and how long, in tokens, their conversations and replies are.
func (r *Run) logPhaseLibrary(recs []phaseRecord) {
	type sum struct{ n, prompt, maxPrompt, cut, reply, maxReply, over int }
	by := map[string]*sum{}
	var phases []string
	for _, rec := range recs {
		s := by[rec.Phase]
		if s == nil {
			s = &sum{}
			by[rec.Phase] = s
			phases = append(phases, rec.Phase)
		}
		s.n++
		s.prompt += rec.PromptTokens
		s.maxPrompt = max(s.maxPrompt, rec.PromptTokens)
		s.reply += rec.ReplyTokens
		s.maxReply = max(s.maxReply, rec.ReplyTokens)
		if rec.Cut > 0 {
			s.cut++
		}
		if !rec.Fits {
			s.over++
		}
	}
	keep := r.Model.Config.MaxPositionEmbeddings - r.atlass.cfg.MaxReplyTokens
	fmt.Fprintf(r.out, "atlass: %d phase demonstrations for the warm start (warm_fraction %v); conversations keep their last %d tokens, replies up to %d\n",
		len(recs), r.atlass.cfg.WarmFraction, keep, r.atlass.cfg.MaxReplyTokens)
	for _, p := range phases {
		s := by[p]
		fmt.Fprintf(r.out, "atlass:   %-8s %5d: conversation %d tokens mean, %d max, %d truncated; reply %d mean, %d max, %d too long\n",
			p, s.n, s.prompt/s.n, s.maxPrompt, s.cut, s.reply/s.n, s.maxReply, s.over)
	}
}

// warmSequence draws one warm-start sequence from rng: with phase
// demonstrations, one of them with probability warm_fraction; otherwise
// a solution demonstration. Without phase demonstrations it draws as
// before they existed, so other runs keep their warm-start batches.
func (r *Run) warmSequence(ctx context.Context, demos []Demo, phases []phaseSeq, rng *rand.Rand) ([]int, []uint8, error) {
	if len(phases) > 0 && rng.Float64() < r.atlass.cfg.WarmFraction {
		p := phases[rng.Intn(len(phases))]
		return slices.Clone(p.tokens), slices.Clone(p.mask), nil
	}
	return r.encodeDemo(ctx, demos[rng.Intn(len(demos))])
}
