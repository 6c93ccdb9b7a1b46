package rollout

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
)

// dialogue plays next once per user turn: next sees the turn's user
// message as its prompt and the response since that message.
func dialogue(next nextFunc) nextFunc {
	return func(row int, prompt, resp string) string {
		q, cur := prompt, resp
		for {
			i := strings.Index(cur, "\n#")
			if i < 0 {
				return next(row, q, cur)
			}
			end := strings.Index(cur[i+2:], "\n")
			if end < 0 { // the message is being written
				return next(row, q, cur)
			}
			q, cur = cur[i+2:i+2+end], cur[i+3+end:]
		}
	}
}

// hashTurn renders later user messages as "\n#msg\n", so dialogue can find them.
func hashTurn(msg string) string { return "\n#" + msg + "\n" }

// turnTool opens sessions that answer with the turn they are in and the
// call's input, and records the turns they were told of.
type turnTool struct{ sessions []*turnSession }

type turnSession struct {
	task    string
	turn    int
	started []int
}

func (*turnTool) Call(context.Context, string) envs.Result {
	return envs.Result{Status: envs.StatusError, Output: "error: shared tool used"}
}

func (tt *turnTool) OpenSession(task envs.Task) envs.ToolSession {
	s := &turnSession{task: task.ID}
	tt.sessions = append(tt.sessions, s)
	return s
}

func (s *turnSession) Call(_ context.Context, in string) envs.Result {
	return envs.Result{Status: envs.StatusOK, Output: fmt.Sprintf("%s@%d", in, s.turn)}
}
func (s *turnSession) Close() error { return nil }
func (s *turnSession) StartTurn(k int) {
	s.turn = k
	s.started = append(s.started, k)
}

// TestRunMultiTurn: when the policy ends a turn (closing answer tag or
// EOS) and the task has later user messages, the engine appends the next
// one with mask 0 and the policy goes on; calls record their turn and the
// tool session hears of every new turn.
func TestRunMultiTurn(t *testing.T) {
	task := []envs.Task{{ID: "c", Prompt: "a", Turns: []string{"b", "c"}}}
	cases := []struct {
		name  string
		next  nextFunc
		edit  func(*Config)
		want  string
		stop  StopReason
		turns int
	}{
		{"answer ends each turn", turns("<code>{prompt}</code>", "<answer>{out}</answer>"), nil,
			"<code>a</code><output>a@0</output>\n<answer>a@0</answer>\n#b\n<code>b</code><output>b@1</output>\n<answer>b@1</answer>\n#c\n<code>c</code><output>c@2</output>\n<answer>c@2</answer>",
			StopAnswer, 3},
		{"eos ends each turn", turns("<code>{prompt}</code>", "ok"), nil,
			"<code>a</code><output>a@0</output>\nok\n#b\n<code>b</code><output>b@1</output>\nok\n#c\n<code>c</code><output>c@2</output>\nok",
			StopEOS, 3},
		{"budget ends the conversation", turns("<code>{prompt}</code>", "ok"), budget(9),
			"<code>a</code><output>a@0</output>\nok\n#b\n<code>b</code><output>b@1</output>\n", StopLength, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := &turnTool{}
			e, p := setup(taggedTok(), dialogue(c.next), sure, tool, c.edit)
			e.UserTurn = hashTurn
			e.Config.GroupSize, e.Config.Temperature, e.Config.MaxToolCalls = 1, 0, 8
			trajs := runTurns(t, e, p, task)
			tr := trajs[0]
			if tr.Response != c.want || tr.Stop != c.stop || tr.Turns != c.turns {
				t.Fatalf("response %q stop %s turns %d\nwant     %q stop %s turns %d", tr.Response, tr.Stop, tr.Turns, c.want, c.stop, c.turns)
			}
			for k, call := range tr.Calls {
				if call.Turn != k {
					t.Errorf("call %d made in turn %d, want %d", k, call.Turn, k)
				}
			}
			if len(tool.sessions) != 1 || !reflect.DeepEqual(tool.sessions[0].started, seq(1, tr.Turns-1)) {
				t.Errorf("sessions %d, turns started %v, want one session told of turns 1..%d", len(tool.sessions), tool.sessions[0].started, tr.Turns-1)
			}
		})
	}
}

// runTurns runs e with the checks of run, but for the user turns' feed.
func runTurns(t *testing.T, e *Engine, p *scriptPolicy, tasks []envs.Task) []*Trajectory {
	t.Helper()
	trajs, err := e.Run(context.Background(), tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, e, tasks, trajs)
	if s := p.sessions[0]; s.overflow != nil {
		t.Fatalf("session overflow: %v", s.overflow)
	}
	for i, tr := range trajs {
		checkFeeds(t, p.sessions[0], i, tr)
		checkTokensWith(t, e, p, i, tr, hashTurn)
	}
	return trajs
}

// TestRunLateSessionHearsEarlierTurns: a session opened in a later turn
// (the first call comes then) is told of every turn already started.
func TestRunLateSessionHearsEarlierTurns(t *testing.T) {
	task := []envs.Task{{ID: "c", Prompt: "a", Turns: []string{"b", "c"}}}
	next := func(row int, prompt, resp string) string {
		if prompt != "c" {
			return turns("ok")(row, prompt, resp)
		}
		return turns("<code>x</code>", "done")(row, prompt, resp)
	}
	tool := &turnTool{}
	e, p := setup(taggedTok(), dialogue(next), sure, tool, nil)
	e.UserTurn = hashTurn
	e.Config.GroupSize, e.Config.Temperature, e.Config.MaxToolCalls = 1, 0, 8
	tr := runTurns(t, e, p, task)[0]
	if len(tr.Calls) != 1 || tr.Calls[0].Turn != 2 || tr.Calls[0].Result.Output != "x@2" {
		t.Fatalf("calls %+v, want one call in turn 2 answered by a session at turn 2", tr.Calls)
	}
	if got := tool.sessions[0].started; !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("late session was told of turns %v, want [1 2]", got)
	}
}

// TestRemoteMultiTurnMatchesEngine: the text loop plays a conversation as
// the engine does.
func TestRemoteMultiTurnMatchesEngine(t *testing.T) {
	tasks := []envs.Task{{ID: "a", Prompt: "2+3", Turns: []string{"4+5"}}, {ID: "b", Prompt: "6+7", Turns: []string{"1+1", "2+2"}}}
	next := dialogue(turns("<code>fmt.Println({prompt})</code>", "<answer>{out}</answer>"))
	tok := taggedTok()
	e, p := setup(tok, wholeText(next), 50, calc, func(c *Config) { c.Temperature, c.MaxToolCalls = 0, 8 })
	e.UserTurn = hashTurn
	e.Tokenizer = eosText{tok}
	local, err := e.Run(context.Background(), tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := completionServer(t, p, tok)
	rem := &Remote{URL: srv.URL, Tool: calc, Format: e.Format, Config: e.Config, Tokenizer: e.Tokenizer, UserTurn: TextTurn(hashTurn)}
	got, _, err := rem.Run(context.Background(), tasks, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range local {
		g := got[i]
		if g.Response != want.Response || g.Stop != want.Stop || g.Turns != want.Turns || !reflect.DeepEqual(g.Calls, want.Calls) {
			t.Errorf("trajectory %d:\n remote %q %s turns %d\n engine %q %s turns %d", i, g.Response, g.Stop, g.Turns, want.Response, want.Stop, want.Turns)
		}
		if want.Turns != len(want.Task.Turns)+1 || want.Stop != StopAnswer {
			t.Errorf("trajectory %d: %d turns, stop %s; want all %d turns answered", i, want.Turns, want.Stop, len(want.Task.Turns)+1)
		}
	}
}

func seq(lo, hi int) []int {
	out := []int{}
	for k := lo; k <= hi; k++ {
		out = append(out, k)
	}
	return out
}
