package taubench

import (
	"fmt"
	"math"
	"strings"

	"github.com/artist-rl/artist/internal/pyval"
)

// GoldHash replays a task's gold actions on a fresh database, skipping
// transfer_to_human_agents as the reference's reward does, and returns the
// final hash: the database an episode must end with.
func GoldHash(d *Domain, t Task) (string, error) {
	env := d.NewEnv()
	for _, a := range t.Actions {
		if a.Name == TerminateTool {
			continue
		}
		if _, err := env.Call(a.Name, a.Kwargs); err != nil {
			return "", fmt.Errorf("taubench: gold actions: %s: %w", a.Name, err)
		}
	}
	return env.Hash(), nil
}

// OutputFound reports whether one required output appears in a message
// the way the reference checks it: the output lower-cased is a substring
// of the message lower-cased with every comma removed (the output itself
// keeps its commas).
func OutputFound(output, message string) bool {
	return strings.Contains(strings.ToLower(strings.ReplaceAll(message, ",", "")), strings.ToLower(output))
}

// OutputsFound counts the required outputs that appear in at least one of
// the agent's respond messages.
func OutputsFound(outputs, messages []string) int {
	n := 0
	for _, o := range outputs {
		for _, m := range messages {
			if OutputFound(o, m) {
				n++
				break
			}
		}
	}
	return n
}

// Outcome is what the reward needs to know of a finished episode.
type Outcome struct {
	// Done reports that the episode ended: the user said StopMarker or the
	// agent called transfer_to_human_agents. An episode that ran out of
	// steps is not done and scores 0.
	Done bool
	// Failed reports an episode the reference records as an error
	// (ErrNoOutput); it scores 0.
	Failed bool
	// Hash is the final database hash.
	Hash string
	// Messages are the contents of the agent's respond actions.
	Messages []string
	// Actions are the agent's actions in order, respond included.
	Actions []Action
}

// Reward is the reference's 0/1 reward: 1 when the episode is done and did
// not fail, its final hash equals gold (GoldHash), and every output is
// found in a respond message (OutputFound); else 0.
func Reward(o Outcome, gold string, outputs []string) float64 {
	if !o.Done || o.Failed || o.Hash != gold || OutputsFound(outputs, o.Messages) != len(outputs) {
		return 0
	}
	return 1
}

// StateScore is the state component: 1 when the final database equals the
// gold one, else 0. It always applies.
func StateScore(o Outcome, gold string) (float64, bool) {
	if !o.Failed && o.Hash == gold {
		return 1, true
	}
	return 0, true
}

// OutputScore is the share of required outputs found in respond messages.
// It applies only to tasks with outputs.
func OutputScore(o Outcome, outputs []string) (float64, bool) {
	if len(outputs) == 0 {
		return 0, false
	}
	return float64(OutputsFound(outputs, o.Messages)) / float64(len(outputs)), true
}

// FunctionScore is the function component: the share of gold actions that
// the agent's actions match. A gold action is matched by an agent action
// with the same name whose kwargs are equal under Python's == (dict key
// order ignored, 1 equal to 1.0, lists in order). Matching is one to one
// and ignores order: each gold action, in order, takes the earliest agent
// action not yet taken that matches it. Respond actions never match. It
// applies only to tasks with gold actions.
func FunctionScore(agent, gold []Action) (float64, bool) {
	if len(gold) == 0 {
		return 0, false
	}
	used := make([]bool, len(agent))
	matched := 0
	for _, g := range gold {
		for i, a := range agent {
			if !used[i] && a.Name != Respond && a.Name == g.Name && pyval.Equal(kwargsOrEmpty(a.Kwargs), kwargsOrEmpty(g.Kwargs)) {
				used[i] = true
				matched++
				break
			}
		}
	}
	return float64(matched) / float64(len(gold)), true
}

func kwargsOrEmpty(d *pyval.Dict) *pyval.Dict {
	if d == nil {
		return pyval.NewDict()
	}
	return d
}

// FormatScore is the format component: the share of the agent's actions
// that are well formed. A respond is well formed with exactly one kwarg,
// content, a string; a tool call when it names a tool of the domain and
// gives exactly its parameters. It applies when there is an action.
func FormatScore(d *Domain, agent []Action) (float64, bool) {
	if len(agent) == 0 {
		return 0, false
	}
	ok := 0
	for _, a := range agent {
		if WellFormed(d, a) {
			ok++
		}
	}
	return float64(ok) / float64(len(agent)), true
}

// WellFormed reports whether one action is well formed (see FormatScore).
func WellFormed(d *Domain, a Action) bool {
	kw := kwargsOrEmpty(a.Kwargs)
	if a.Name == Respond {
		c, _ := kw.Get("content")
		_, isStr := c.(string)
		return kw.Len() == 1 && isStr
	}
	t, ok := d.tools[a.Name]
	return ok && checkArgs(a.Name, t.params, kw) == nil
}

// Components is one episode's scores for GRPO: the reward and its parts.
// A part that does not apply to the task is absent from the map.
func Components(d *Domain, t Task, o Outcome, gold string) map[string]float64 {
	out := map[string]float64{"reward": Reward(o, gold, t.Outputs)}
	add := func(name string, s float64, ok bool) {
		if ok {
			out[name] = s
		}
	}
	s, ok := StateScore(o, gold)
	add("state", s, ok)
	s, ok = FunctionScore(o.Actions, t.Actions)
	add("function", s, ok)
	s, ok = OutputScore(o, t.Outputs)
	add("outputs", s, ok)
	s, ok = FormatScore(d, o.Actions)
	add("format", s, ok)
	return out
}

// Success is the reference's trial success test: |reward - 1| <= 1e-6.
func Success(reward float64) bool { return math.Abs(reward-1) <= 1e-6 }
