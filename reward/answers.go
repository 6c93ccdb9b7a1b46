package reward

import (
	"fmt"

	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/reward/mathgrade"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Answers judges tasks that have gold final answers, for the task
// families whose sets embed it: a rollout is correct when the answer
// extracted from its response (mathgrade.Extract) equals the gold one
// (mathgrade.Equal).
type Answers struct {
	Format format.Format
}

var _ family.Voter = Answers{}

// Judge decides correctness as Correct does, and records the extracted
// answer.
func (a Answers) Judge(t *rollout.Trajectory) family.Verdict {
	pred, ok := mathgrade.Extract(t.Response, a.Format)
	v := family.Verdict{Correct: ok && mathgrade.Equal(pred, t.Task.Answer)}
	if ok {
		v.Answer = pred
	}
	v.Reason = fmt.Sprintf("gold %s, correct %v", t.Task.Answer, v.Correct)
	return v
}

// Same implements family.Voter with mathgrade.Equal.
func (Answers) Same(x, y string) bool { return mathgrade.Equal(x, y) }

// AnswerRewards are the math components, the ones that judge tasks with
// final answers.
func AnswerRewards() []string {
	return []string{"answer", "format_relaxed", "format_strict", "tool_success"}
}
