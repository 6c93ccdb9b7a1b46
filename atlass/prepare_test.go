package atlass

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// fixed is a Chat that answers with its replies in order.
type fixed []string

func (f *fixed) Reply(context.Context, []openai.ChatMessage) (string, error) {
	if len(*f) == 0 {
		return "", errors.New("fixed: no reply left")
	}
	next := (*f)[0]
	*f = (*f)[1:]
	return next, nil
}

const (
	analyzed   = `{"subtasks": ["Find the greatest common divisor of 84 and 36."]}`
	needsGCD   = `{"needs_tools": true, "tools": [{"name": "greatestCommonDivisor", "description": "the greatest common divisor of two ints"}]}`
	selectsGCD = `{"matches": [{"needed": "greatestCommonDivisor", "existing": 1, "why": "gcd does this"}]}`
)

// TestPrepare: Prepare runs the phases without a Solver; ApprovedTools
// gives only the provided tools approved now, once each; WithTools defines
// them before a snippet.
func TestPrepare(t *testing.T) {
	cases := []struct {
		name    string
		state   State // of the stored gcd
		replies []string
		status  Status
		phases  string
		tools   int // approved tools provided
	}{
		{"selected approved", Approved, []string{analyzed, needsGCD, selectsGCD}, "", "analyze plan select", 1},
		{"selected pending", Pending, []string{analyzed, needsGCD, selectsGCD}, "", "analyze plan select", 0},
		{"no tools", Approved, []string{analyzed, `{"needs_tools": false, "tools": []}`}, "", "analyze plan", 0},
		{"gives up", Approved, []string{"no json", "still none", "nothing"}, Failed, "analyze", 0},
	}
	sb := newSandbox(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := newMemDB()
			store(t, db, sb, gcdSource, c.state)
			chat := fixed(c.replies)
			p := &Pipeline{Chat: &chat, DB: db, Code: sb}
			tr, err := p.Prepare(context.Background(), envs.Task{ID: "gcd", Prompt: "What is the greatest common divisor of 84 and 36?"})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(phasesOf(tr), " "); tr.Status != c.status || got != c.phases {
				t.Errorf("status %q phases %q, want %q %q (%s)", tr.Status, got, c.status, c.phases, tr.Message)
			}
			ids, tools, err := p.ApprovedTools(context.Background(), tr)
			if err != nil || len(ids) != c.tools || len(tools) != c.tools {
				t.Fatalf("approved tools %v, %v; want %d", ids, err, c.tools)
			}
			if c.tools == 0 {
				return
			}
			res := WithTools(sb, tools).Call(context.Background(), "fmt.Println(gcd(84, 36))")
			if res.Status != envs.StatusOK || res.Output != "12\n" {
				t.Errorf("a snippet calling gcd with it defined: %+v", res)
			}
		})
	}
	t.Run("missing field", func(t *testing.T) {
		_, err := (&Pipeline{DB: newMemDB(), Code: sb}).Prepare(context.Background(), envs.Task{Prompt: "x"})
		if err == nil || !strings.Contains(err.Error(), "Pipeline.Chat is nil") {
			t.Errorf("Prepare without Chat: %v", err)
		}
	})
}

// TestPolicyChatMaxLen: a conversation longer than the context less the
// reply keeps its last tokens; a reply as long as the context is refused.
func TestPolicyChatMaxLen(t *testing.T) {
	msgs := []openai.ChatMessage{message("system", strings.Repeat("s", 40)), message("user", "the task")}
	full, _ := RenderPlain(msgs)
	cases := []struct {
		maxLen int
		fed    string
		err    string
	}{
		{0, full, ""},
		{25, full[len(full)-20:], ""},
		{5, "", "leaves no room"},
	}
	for i, c := range cases {
		pol := &replay{texts: []string{"ok"}}
		chat := &PolicyChat{Policy: pol, Tokenizer: byteTok{}, Render: RenderPlain, Config: rollout.CompleteConfig{MaxTokens: 5, TopP: 1}, MaxLen: c.maxLen}
		reply, err := chat.Reply(context.Background(), msgs)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("case %d: %v, want %q", i, err, c.err)
			}
			continue
		}
		if err != nil || reply != "ok" || !strings.HasPrefix(pol.fed[0], c.fed) {
			t.Errorf("case %d: reply %q, %v; fed %q, want it to start with %q", i, reply, err, pol.fed[0], c.fed)
		}
	}
}
