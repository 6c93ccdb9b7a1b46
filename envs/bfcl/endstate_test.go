package bfcl

import (
	"context"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
)

// sessionTrajectory runs blocks through a fresh session of e, turn by
// turn (blocks[i] is turn i's one block, "" for none), and returns the
// trajectory with the calls and the end state the engine records.
func sessionTrajectory(t *testing.T, e Entry, blocks []string) *rollout.Trajectory {
	t.Helper()
	s := NewTool(testData(t), []Entry{e}).OpenSession(envs.Task{ID: e.ID}).(*Session)
	tr := &rollout.Trajectory{Task: envs.Task{ID: e.ID}}
	for i, b := range blocks {
		if i > 0 {
			s.StartTurn(i)
		}
		if b == "" {
			continue
		}
		res := s.Call(context.Background(), b)
		tr.Calls = append(tr.Calls, rollout.Call{Input: b, Result: res, Turn: i})
	}
	s.Close()
	tr.ToolState = s.EndState()
	return tr
}

// TestStateFromSession: the state reward scores the end state the
// rollout's session recorded when it is exactly what a replay with every
// function callable leaves, and replays otherwise (a call refused as
// withheld, calls that differ from the trajectory's, none recorded).
func TestStateFromSession(t *testing.T) {
	d := testData(t)
	base := entryByID(t, "base", "multi_turn_base_0")
	miss := entryByID(t, "miss_func", "multi_turn_miss_func_0") // sort withheld until turn 3
	var gold []string
	for _, turn := range base.GroundTruth {
		gold = append(gold, "["+strings.Join(turn, ", ")+"]")
	}
	cases := []struct {
		name   string
		cat    string
		entry  Entry
		blocks []string
		exact  bool
	}{
		{"base, the ground truth", "base", base, gold, true},
		{"base, part of it", "base", base, gold[:2], true},
		{"miss_func, sort before its turn", "miss_func", miss, []string{"cd(folder='letters')\nsort(file_name='reply.txt')"}, false},
		{"miss_func, sort at its turn", "miss_func", miss, []string{"cd(folder='letters')", "", "", "sort(file_name='reply.txt')"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fc, err := NewFC(d, tc.cat, fcFormat)
			if err != nil {
				t.Fatal(err)
			}
			tr := sessionTrajectory(t, tc.entry, tc.blocks)
			end, _ := tr.ToolState.(*End)
			if end == nil || end.Exact != tc.exact {
				t.Fatalf("end state %+v, want Exact %v", end, tc.exact)
			}
			task := envs.Task{ID: tc.entry.ID}
			recorded, ok1 := fc.State()(tr, task)
			replay := *tr
			replay.ToolState = nil
			replayed, ok2 := fc.State()(&replay, task)
			if !ok1 || !ok2 || recorded != replayed {
				t.Fatalf("state %.4f (%v) from the session, %.4f (%v) replayed", recorded, ok1, replayed, ok2)
			}
			// The recorded state is what gets read when it is exact: a
			// record of other instances (those the gold calls leave, or
			// fresh ones when the calls reach the gold) changes the score.
			forged := *end
			other, err := NewEnv(d, tc.entry.InvolvedClasses, tc.entry.InitialConfig, tc.entry.LongContext())
			if err != nil {
				t.Fatal(err)
			}
			if replayed != fcStateScore {
				for _, turn := range tc.entry.GroundTruth {
					for _, c := range turn {
						other.Execute(c)
					}
				}
			}
			forged.env = other
			tr.ToolState = &forged
			got, _ := fc.State()(tr, task)
			if tc.exact && got == replayed {
				t.Errorf("a forged recorded state scored as the replay (%.4f): the record is not read", got)
			}
			if !tc.exact && got != replayed {
				t.Errorf("an inexact record was read: %.4f, replay %.4f", got, replayed)
			}
			forged.Calls = append(forged.Calls, "pwd()")
			if got, _ := fc.State()(tr, task); got != replayed {
				t.Errorf("a record of other calls was read: %.4f, replay %.4f", got, replayed)
			}
		})
	}
}
