package rollout

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/envs"
)

// echoUsers opens sessions whose user answers the k-th thing the policy
// says with "u<k>:<what it said>", ends the conversation after `replies`
// answers, and records what it heard. Calls answer with the turn.
type echoUsers struct {
	replies, max int
	mu           sync.Mutex
	sessions     []*echoUser
}

type echoUser struct {
	replies int
	heard   []string
	turn    int
}

func (*echoUsers) Call(context.Context, string) envs.Result {
	return envs.Result{Status: envs.StatusError, Output: "error: shared tool used"}
}

func (u *echoUsers) MaxReplies() int { return u.max }

func (u *echoUsers) OpenSession(envs.Task) envs.ToolSession {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := &echoUser{replies: u.replies}
	u.sessions = append(u.sessions, s)
	return s
}

func (s *echoUser) Call(_ context.Context, in string) envs.Result {
	return envs.Result{Status: envs.StatusOK, Output: fmt.Sprintf("%s@%d", in, s.turn)}
}
func (s *echoUser) Close() error    { return nil }
func (s *echoUser) StartTurn(k int) { s.turn = k }

func (s *echoUser) Reply(_ context.Context, said string) (string, bool) {
	s.heard = append(s.heard, said)
	if len(s.heard) > s.replies {
		return "", true
	}
	return fmt.Sprintf("u%d:%s", len(s.heard), said), false
}

// TestRunUserReplies: with an envs.UserTool, each end of turn hands the
// user what the policy said since the last result or user message (the
// stop token left out), and the reply is appended with mask 0 as the
// next user turn, until the user ends the conversation or MaxReplies is
// reached; the result is the same through Remote.
func TestRunUserReplies(t *testing.T) {
	task := []envs.Task{{ID: "c", Prompt: "a"}}
	cases := []struct {
		name           string
		next           nextFunc
		replies, max   int
		edit           func(*Config)
		want           string
		heard          []string
		stop           StopReason
		turns, engaged int
	}{
		{"user ends after two replies", dialogue(turns("<code>{prompt}</code>", "ok")), 2, 5, nil,
			"<code>a</code><output>a@0</output>\nok<eos>\n#u1:ok\n<code>u1:ok</code><output>u1:ok@1</output>\nok<eos>\n#u2:ok\n<code>u2:ok</code><output>u2:ok@2</output>\nok<eos>",
			[]string{"ok", "ok", "ok"}, StopEOS, 3, 1},
		{"answer tags are said", dialogue(turns("<answer>{prompt}</answer>")), 1, 5, nil,
			"<answer>a</answer>\n#u1:<answer>a</answer>\n<answer>u1:<answer>a</answer>",
			[]string{"<answer>a</answer>", "<answer>u1:<answer>a</answer>"}, StopAnswer, 2, 1},
		{"max replies ends it", dialogue(turns("hi")), 9, 1, nil,
			"hi<eos>\n#u1:hi\nhi<eos>", []string{"hi"}, StopEOS, 2, 1},
		{"budget ends it", dialogue(turns("hello")), 9, 5, budget(6),
			"hello<eos>", nil, StopLength, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			users := &echoUsers{replies: c.replies, max: c.max}
			tok := taggedTok()
			e, p := setup(tok, wholeText(c.next), sure, users, func(cfg *Config) {
				cfg.GroupSize, cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResultTokens = 1, 0, 8, 64
				if c.edit != nil {
					c.edit(cfg)
				}
			})
			e.UserTurn, e.Tokenizer = hashTurn, eosText{tok}
			tr := runUsers(t, e, p, task)
			if tr.Response != c.want || tr.Stop != c.stop || tr.Turns != c.turns {
				t.Fatalf("response %q stop %s turns %d\nwant     %q stop %s turns %d", tr.Response, tr.Stop, tr.Turns, c.want, c.stop, c.turns)
			}
			if len(users.sessions) != c.engaged {
				t.Fatalf("%d sessions opened, want %d", len(users.sessions), c.engaged)
			}
			if c.engaged > 0 && !reflect.DeepEqual(users.sessions[0].heard, c.heard) {
				t.Errorf("user heard %q, want %q", users.sessions[0].heard, c.heard)
			}
			remote := &echoUsers{replies: c.replies, max: c.max}
			srv := completionServer(t, p, tok)
			rem := &Remote{URL: srv.URL, Tool: remote, Format: e.Format, Config: e.Config, Tokenizer: e.Tokenizer, UserTurn: TextTurn(hashTurn)}
			got, _, err := rem.Run(context.Background(), task, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Replies) != len(c.heard) {
				t.Errorf("%d replies recorded, want one per message heard (%d)", len(tr.Replies), len(c.heard))
			}
			for k, r := range tr.Replies {
				if r.Said != c.heard[k] || r.Done != (k == c.replies) {
					t.Errorf("reply %d = %+v, want said %q done %v", k, r, c.heard[k], k == c.replies)
				}
			}
			if g := got[0]; g.Response != tr.Response || g.Stop != tr.Stop || g.Turns != tr.Turns || !reflect.DeepEqual(g.Calls, tr.Calls) || !reflect.DeepEqual(g.Replies, tr.Replies) {
				t.Errorf("remote %q %s turns %d, engine %q %s turns %d", g.Response, g.Stop, g.Turns, tr.Response, tr.Stop, tr.Turns)
			}
		})
	}
}

// TestRunUserReplyCut: a reply longer than its budget is cut in the
// middle, and the session never holds more tokens than MaxLen said.
func TestRunUserReplyCut(t *testing.T) {
	users := &longUsers{}
	e, p := setup(taggedTok(), dialogue(turns("hi")), sure, users, func(cfg *Config) {
		cfg.GroupSize, cfg.Temperature, cfg.MaxResultTokens = 1, 0, 8
	})
	e.UserTurn = hashTurn
	tr := runUsers(t, e, p, []envs.Task{{ID: "c", Prompt: "a"}})
	if !strings.Contains(tr.Response, TruncationMark) || tr.Turns != 3 {
		t.Fatalf("response %q turns %d: want the replies cut with %q, 3 turns", tr.Response, tr.Turns, TruncationMark)
	}
}

type longUsers struct{ echoUsers }

func (*longUsers) MaxReplies() int { return 2 }

func (u *longUsers) OpenSession(envs.Task) envs.ToolSession { return &longUser{} }

type longUser struct{ echoUser }

func (*longUser) Reply(context.Context, string) (string, bool) { return strings.Repeat("x", 40), false }

// runUsers runs e on one task with G=1 and checks the session contract
// and that each mask-0 span is an output block or a rendered user turn.
func runUsers(t *testing.T, e *Engine, p *scriptPolicy, tasks []envs.Task) *Trajectory {
	t.Helper()
	trajs, err := e.Run(context.Background(), tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.sessions[0]; s.overflow != nil {
		t.Fatalf("session overflow: %v", s.overflow)
	}
	tr := trajs[0]
	checkFeeds(t, p.sessions[0], 0, tr)
	spans := 0
	for k := tr.PromptLen; k < len(tr.Tokens); k++ {
		if tr.Mask[k] == 0 && tr.Mask[k-1] == 1 {
			spans++
		}
	}
	if spans != len(tr.Calls)+tr.Turns-1 {
		t.Errorf("%d engine-written spans for %d calls and %d turns", spans, len(tr.Calls), tr.Turns)
	}
	return tr
}
