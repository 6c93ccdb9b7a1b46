package taubench

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestEpisodeScriptedUser(t *testing.T) {
	ctx := context.Background()
	d := loadDomain(t, fixture+"/"+Retail, Retail)
	task := Task{Instruction: "cancel #W0000001", Actions: []Action{act("cancel_pending_order", "order_id", "#W0000001", "reason", "no longer needed")}}
	user := &ScriptedUser{Utterances: []string{"Hi, cancel my order.", "Yes, go ahead."}}
	ep, first, err := NewEpisode(ctx, d, task, user)
	if err != nil || first != "Hi, cancel my order." {
		t.Fatalf("first utterance %q, %v", first, err)
	}
	steps := []struct {
		a    Action
		want string
		done bool
	}{
		{act(Respond, "content", "Shall I cancel #W0000001?"), "Yes, go ahead.", false},
		{act("cancel_pending_order", "order_id", "#W0000001", "reason", "no longer needed"), `{"order_id": "#W0000001"`, false},
		{act(Respond, "content", "Done."), StopMarker, true},
	}
	for i, s := range steps {
		obs, done, err := ep.Step(ctx, s.a)
		if err != nil || !strings.HasPrefix(obs, s.want) || done != s.done {
			t.Fatalf("step %d: %q, %v, %v; want %q, %v", i, obs, done, err, s.want, s.done)
		}
	}
	if _, _, err := ep.Step(ctx, act(Respond, "content", "more")); !errors.Is(err, ErrEpisodeOver) {
		t.Errorf("step after the end: %v, want ErrEpisodeOver", err)
	}
	roles := ""
	for _, turn := range ep.Turns {
		roles += turn.Role[:1]
	}
	if roles != "uautau" {
		t.Errorf("turn roles %q, want uautau", roles)
	}
	if len(user.Heard) != 2 || user.Heard[1] != "Done." {
		t.Errorf("user heard %q", user.Heard)
	}
	gold, _ := GoldHash(d, task)
	if r := Reward(ep.Outcome(), gold, nil); r != 1 {
		t.Errorf("reward %v, want 1", r)
	}
}

func TestEpisodeEndings(t *testing.T) {
	ctx := context.Background()
	d := loadDomain(t, fixture+"/"+Airline, Airline)
	t.Run("terminate tool", func(t *testing.T) {
		ep, _, _ := NewEpisode(ctx, d, Task{}, &ScriptedUser{Utterances: []string{"help"}})
		obs, done, err := ep.Step(ctx, act(TerminateTool, "summary", "s"))
		if obs != "Transfer successful" || !done || err != nil {
			t.Errorf("%q, %v, %v", obs, done, err)
		}
	})
	t.Run("step limit", func(t *testing.T) {
		ep, _, _ := NewEpisode(ctx, d, Task{}, &ScriptedUser{Utterances: []string{"help"}})
		ep.MaxSteps = 2
		for i := 0; i < 2; i++ {
			if _, _, err := ep.Step(ctx, act("think", "thought", "t")); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := ep.Step(ctx, act("think", "thought", "t")); !errors.Is(err, ErrEpisodeOver) {
			t.Errorf("third step: %v", err)
		}
		if r := Reward(ep.Outcome(), ep.Env().Hash(), nil); r != 0 || ep.Done() {
			t.Errorf("an episode out of steps scored %v (done %v)", r, ep.Done())
		}
	})
	t.Run("stop inside a reply", func(t *testing.T) {
		ep, _, _ := NewEpisode(ctx, d, Task{}, &ScriptedUser{Utterances: []string{"help", "thanks ###STOP### bye"}})
		if _, done, _ := ep.Step(ctx, act(Respond, "content", "ok")); !done {
			t.Error("a reply containing the stop marker did not end the episode")
		}
	})
	t.Run("failing tool", func(t *testing.T) {
		ep, _, _ := NewEpisode(ctx, d, Task{}, &ScriptedUser{Utterances: []string{"help"}})
		args := []any{"user_id", "ben_wu_2002", "amount", int64(5)}
		for i := 0; i < 3; i++ {
			_, _, err := ep.Step(ctx, act("send_certificate", args...))
			if (err != nil) != (i == 2) {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		if o := ep.Outcome(); !o.Failed || Reward(o, o.Hash, nil) != 0 {
			t.Errorf("failed episode: %+v", o)
		}
	})
}

func TestLLMUser(t *testing.T) {
	ctx := context.Background()
	var seen [][]ChatMessage
	replies := []string{"I want to cancel.", "Yes. " + StopMarker}
	u := &LLMUser{Chat: func(_ context.Context, m []ChatMessage) (string, error) {
		seen = append(seen, m)
		return replies[len(seen)-1], nil
	}}
	first, err := u.Start(ctx, "Cancel order #W1.")
	if err != nil || first != replies[0] {
		t.Fatalf("%q, %v", first, err)
	}
	reply, err := u.Reply(ctx, "Shall I cancel it?")
	if err != nil || !IsStop(reply) {
		t.Fatalf("%q, %v", reply, err)
	}
	want := []string{"system", "user", "assistant", "user"}
	if len(seen[1]) != len(want) {
		t.Fatalf("second call saw %d messages, want %d", len(seen[1]), len(want))
	}
	for i, m := range seen[1] {
		if m.Role != want[i] {
			t.Errorf("message %d role %s, want %s", i, m.Role, want[i])
		}
	}
	if seen[1][1].Content != Greeting || seen[1][3].Content != "Shall I cancel it?" || !strings.Contains(seen[1][0].Content, "Cancel order #W1.") {
		t.Errorf("history %+v", seen[1])
	}
	if h := u.History(); len(h) != 5 || h[4].Content != replies[1] {
		t.Errorf("history after the reply: %+v", h)
	}
	if _, err := (&LLMUser{}).Start(ctx, "x"); err == nil {
		t.Error("a user without Chat started")
	}
}

func TestUserPrompt(t *testing.T) {
	p := UserPrompt("You are Ana. You want a refund.")
	for _, must := range []string{"You are Ana. You want a refund.", StopMarker, "one short message", "Never invent"} {
		if !strings.Contains(p, must) {
			t.Errorf("prompt lacks %q", must)
		}
	}
	if strings.Contains(UserPrompt(""), "situation and goal") {
		t.Error("an empty instruction still gets its section")
	}
}
