package taubench

import (
	"errors"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
)

// The tau-bench components: taubench_reward is the benchmark's 0/1
// reward, taubench_state, taubench_function, taubench_outputs and
// taubench_format its parts (Components). Each replays the
// trajectory's episode on the *Set that the task family
// supplies; taubench_function applies to tasks with gold actions,
// taubench_outputs to tasks with required outputs; taubench_format
// always applies, 0 for a trajectory without an action.
func init() {
	for _, name := range RewardNames {
		reward.Register(name, tauComponent(strings.TrimPrefix(name, "taubench_")))
	}
}

// errNoTauSet is the error of a tau-bench component built without the
// tasks it judges.
var errNoTauSet = errors.New("it replays tau-bench episodes, but the task family supplies no *Set: use it with task.name: taubench")

func tauComponent(part string) reward.Constructor {
	return func(e reward.Env) (reward.Func, error) {
		s, ok := reward.Supplied[*Set](e)
		if !ok {
			return nil, errNoTauSet
		}
		return func(t *rollout.Trajectory, _ envs.Task) (float64, bool) {
			v, ok := s.Score(t)[part]
			if !ok && part == "format" {
				return 0, true // no action at all: none well formed
			}
			return v, ok
		}, nil
	}
}
