package rollout

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
)

// errTurn is what failingTurn returns for a message it refuses.
var errTurn = errors.New("template raised")

// failingTurn renders messages as hashTurn does, except those holding
// bad, on which it fails as a chat template that raises would.
func failingTurn(bad string) func(string) (string, error) {
	return func(msg string) (string, error) {
		if bad != "" && strings.Contains(msg, bad) {
			return "", errTurn
		}
		return hashTurn(msg), nil
	}
}

// TestRemoteUserTurnFails: a user message Remote.UserTurn fails on (a
// task's later turn, or a user's reply) ends its trajectory with an error
// naming the task, which Run returns instead of panicking; messages it
// renders go on as before.
func TestRemoteUserTurnFails(t *testing.T) {
	multi := []envs.Task{{ID: "fine", Prompt: "2+3", Turns: []string{"4+5"}}, {ID: "broken", Prompt: "6+7", Turns: []string{"1+1", "bad"}}}
	cases := []struct {
		name    string
		tasks   []envs.Task
		tool    envs.Tool
		bad     string
		wantErr string // "" for success
	}{
		{"task turns render", multi, calc, "", ""},
		{"a task turn fails", multi, calc, "bad", `user turn: template raised (task "broken")`},
		{"a reply renders", []envs.Task{{ID: "c", Prompt: "a"}}, &echoUsers{replies: 1, max: 5}, "", ""},
		{"a reply fails", []envs.Task{{ID: "c", Prompt: "a"}}, &echoUsers{replies: 1, max: 5}, "u1:", `user turn: template raised (task "c"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next := dialogue(turns("<code>fmt.Println({prompt})</code>", "<answer>{out}</answer>"))
			tok := taggedTok()
			e, p := setup(tok, wholeText(next), 50, c.tool, func(cfg *Config) { cfg.Temperature, cfg.MaxToolCalls = 0, 8 })
			srv := completionServer(t, p, tok)
			rem := &Remote{URL: srv.URL, Tool: c.tool, Format: e.Format, Config: e.Config, Tokenizer: eosText{tok}, UserTurn: failingTurn(c.bad), Parallel: 1}
			got, _, err := rem.Run(context.Background(), c.tasks, 1, nil)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				for _, g := range got {
					if g.Turns < 2 {
						t.Errorf("task %s: %d turns, want the later user turn played", g.Task.ID, g.Turns)
					}
				}
				return
			}
			if err == nil || !errors.Is(err, errTurn) || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("Run error %v, want %s wrapping %v", err, c.wantErr, errTurn)
			}
			if got != nil {
				t.Errorf("Run returned %d trajectories with its error", len(got))
			}
		})
	}
}

// TestTextTurn: TextTurn keeps nil (Remote's UserTurnText) and adapts a
// renderer that cannot fail.
func TestTextTurn(t *testing.T) {
	if TextTurn(nil) != nil {
		t.Error("TextTurn(nil) is not nil")
	}
	if got, err := TextTurn(hashTurn)("m"); got != hashTurn("m") || err != nil {
		t.Errorf("TextTurn(hashTurn)(m) = %q, %v; want %q, nil", got, err, hashTurn("m"))
	}
}
