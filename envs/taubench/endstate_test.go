package taubench

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/pyval"
	"github.com/artist-rl/artist/rollout"
)

// play runs an episode as the rollout engine's tool loop does: turns[k]
// holds the tool blocks of turn k, each turn ends with a reply to the
// user, and the conversation stops when the user is done.
func play(t *testing.T, tool envs.Tool, task envs.Task, turns [][]string, said string) *rollout.Trajectory {
	t.Helper()
	sess := tool.(envs.SessionTool).OpenSession(task).(*Session)
	tr := &rollout.Trajectory{Task: task, Turns: 1}
	for _, blocks := range turns {
		for _, in := range blocks {
			tr.Calls = append(tr.Calls, rollout.Call{Input: in, Result: sess.Call(context.Background(), in), Turn: tr.Turns - 1})
		}
		_, done := sess.Reply(context.Background(), said)
		tr.Replies = append(tr.Replies, rollout.Reply{Said: said, Done: done})
		if done {
			break
		}
		tr.Turns++
	}
	sess.Close()
	tr.ToolState = sess.EndState()
	return tr
}

// TestOutcomeFromSession: the outcome a session records while its
// episode is played equals the replay of the trajectory
// (TrajectoryOutcome) for gold actions, a respond inside a tool block, a
// failing action, a transfer to a human and blocks after it, and
// unparseable blocks; the Set scores from the record, and a trajectory
// whose calls differ from the record is replayed instead.
func TestOutcomeFromSession(t *testing.T) {
	s := openFixture(t, Retail, UserConfig{Kind: UserScripted})
	tool, err := s.Tool(FamilyName)
	if err != nil {
		t.Fatal(err)
	}
	task := s.Heldout()[0]
	tt := s.tasks[task.ID]
	var gold []string
	for _, a := range tt.Actions {
		in, _ := pyval.JSON(pyval.NewDict("name", a.Name, "arguments", a.Kwargs))
		gold = append(gold, in)
	}
	respond := `{"name": "respond", "arguments": {"content": "hello"}}`
	transfer := `{"name": "transfer_to_human_agents", "arguments": {"summary": "help"}}`
	cases := []struct {
		name  string
		turns [][]string
	}{
		{"gold", [][]string{gold}},
		{"gold over two turns", [][]string{gold[:1], gold[1:]}},
		{"respond in a block", [][]string{{respond}, gold}},
		{"an unknown action and bad arguments", [][]string{{`{"name": "no_such_tool", "arguments": {}}`, `{"name": "` + tt.Actions[0].Name + `", "arguments": {"bogus": 1}}`}}},
		{"transfer, then more", [][]string{{transfer, gold[0]}, gold}},
		{"blocks that do not parse", [][]string{{"not json", "[]"}, gold}},
	}
	said := "<reasoning>done</reasoning>" + strings.Join(tt.Outputs, " ")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := play(t, tool, task, tc.turns, said)
			end, ok := tr.ToolState.(*End)
			if !ok || !end.played(tr) {
				t.Fatalf("no record of the episode played: %+v", tr.ToolState)
			}
			if want := TrajectoryOutcome(s.domain, tr, s.format); !reflect.DeepEqual(end.Outcome, want) {
				t.Fatalf("recorded outcome\n%+v\nreplay\n%+v", end.Outcome, want)
			}
			replay := *tr
			replay.ToolState = nil
			if got, want := s.Score(tr), s.Score(&replay); !reflect.DeepEqual(got, want) {
				t.Fatalf("components %v from the record, %v replayed", got, want)
			}
			// A record is read only for the episode it was played from.
			forged := *end
			forged.Outcome.Hash = "forged"
			tr.ToolState = &forged
			if got := s.outcome(tr); got.Hash != "forged" {
				t.Error("the record of the episode is not read")
			}
			tr.Calls = append(tr.Calls, rollout.Call{Input: gold[0], Turn: tr.Turns - 1})
			if got := s.outcome(tr); got.Hash == "forged" {
				t.Error("a record of other calls was read")
			}
		})
	}
}
