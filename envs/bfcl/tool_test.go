package bfcl

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/envs"
)

// replayResults returns the ground-truth result strings of each turn, as
// Replay records them.
func replayResults(t *testing.T, d *Data, e Entry) [][]string {
	t.Helper()
	rec, err := Replay(d, e)
	if err != nil {
		t.Fatal(err)
	}
	turns, _ := rec.Get("turns")
	var out [][]string
	for _, tv := range turns.([]any) {
		rs, _ := tv.(*Dict).Get("results")
		var turn []string
		for _, r := range rs.([]any) {
			turn = append(turn, r.(string))
		}
		out = append(out, turn)
	}
	return out
}

// withheldErrors replaces the results of ground-truth calls to functions
// not yet offered by the withheld error: the fixture's
// multi_turn_miss_func_3 calls get_stock_info (read-only) at turn 1, two
// turns before it is offered, as the benchmark's multi_turn_miss_func_49
// calls tail.
func withheldErrors(t *testing.T, e Entry, results [][]string) [][]string {
	t.Helper()
	want := make([][]string, len(results))
	for i := range results {
		want[i] = slices.Clone(results[i])
	}
	for i, calls := range e.GroundTruth {
		for j, c := range calls {
			pc, err := ParseCall(c)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(e.Withheld(i), pc.Name) {
				want[i][j] = errWithheld(pc.Name)
			}
		}
	}
	return want
}

// block writes a turn's ground-truth calls as one tool block, as a Python
// list or one call per line.
func block(calls []string, list bool) string {
	if list {
		return "[" + strings.Join(calls, ", ") + "]"
	}
	return strings.Join(calls, "\n")
}

// replaySession sends each ground-truth turn as one block through a fresh
// session and checks the results against want.
func replaySession(tool *Tool, e Entry, want [][]string) (*Session, error) {
	s := tool.OpenSession(envs.Task{ID: e.ID}).(*Session)
	for i, calls := range e.GroundTruth {
		if i > 0 {
			s.StartTurn(i)
		}
		if len(calls) == 0 {
			continue
		}
		r := s.Call(context.Background(), block(calls, i%2 == 0))
		if got, w := r.Output, strings.Join(want[i], "\n"); got != w {
			return nil, fmt.Errorf("%s turn %d:%s", e.ID, i, firstDiff(got, w))
		}
		wantStatus := envs.StatusOK
		for _, res := range want[i] {
			if strings.HasPrefix(res, ErrorPrefix) {
				wantStatus = envs.StatusError
				break
			}
		}
		if r.Status != wantStatus {
			return nil, fmt.Errorf("%s turn %d: status %s, want %s", e.ID, i, r.Status, wantStatus)
		}
	}
	return s, nil
}

func TestSessionReplaysGroundTruth(t *testing.T) {
	eachSource(t, func(t *testing.T, _ source, ds *dataSet) {
		for _, cat := range Categories {
			t.Run(cat, func(t *testing.T) {
				es := ds.of(t, cat)
				tool := NewTool(ds.d, es)
				for _, e := range es {
					replayed := replayResults(t, ds.d, e)
					want := withheldErrors(t, e, replayed)
					s, err := replaySession(tool, e, want)
					if err != nil {
						t.Fatal(err)
					}
					// The recorded calls reproduce the replay through Execute
					// on instances that withhold nothing.
					env, err := NewEnv(ds.d, e.InvolvedClasses, e.InitialConfig, e.LongContext())
					if err != nil {
						t.Fatal(err)
					}
					var got, all []string
					for _, c := range s.Calls() {
						got = append(got, env.Execute(c))
					}
					for _, w := range replayed {
						all = append(all, w...)
					}
					if strings.Join(got, "\n") != strings.Join(all, "\n") {
						t.Fatalf("%s: recorded calls %q give other results", e.ID, s.Calls())
					}
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	})
}

func TestSessionWithheldFunction(t *testing.T) {
	e := entryByID(t, "miss_func", "multi_turn_miss_func_0") // sort withheld until turn 3
	s := NewTool(testData(t), []Entry{e}).OpenSession(envs.Task{ID: e.ID}).(*Session)
	ctx := context.Background()
	if r := s.Call(ctx, "cd(folder='letters')"); r.Status != envs.StatusOK {
		t.Fatalf("cd: %+v", r)
	}
	for _, tc := range []struct {
		name   string
		turn   int // StartTurn before the call; 0 for none
		status envs.Status
		output string
	}{
		{"before its turn", 0, envs.StatusError, ErrorPrefix + "function 'sort' is not available at this point"},
		{"turn 2", 2, envs.StatusError, ErrorPrefix + "function 'sort' is not available at this point"},
		{"offered at turn 3", 3, envs.StatusOK, `{"sorted_content": "see you at noon\nthanks for the invite"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.turn > 0 {
				s.StartTurn(tc.turn)
			}
			r := s.Call(ctx, "sort(file_name='reply.txt')")
			if r.Status != tc.status || r.Output != tc.output {
				t.Fatalf("got %s %q, want %s %q", r.Status, r.Output, tc.status, tc.output)
			}
		})
	}
}

func TestSessionResults(t *testing.T) {
	e := entryByID(t, "base", "multi_turn_base_0")
	tool := NewTool(testData(t), []Entry{e})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	closed := tool.OpenSession(envs.Task{ID: e.ID})
	closed.Close()
	for _, tc := range []struct {
		name   string
		s      envs.Tool
		ctx    context.Context
		input  string
		status envs.Status
		output string // the output's prefix
	}{
		{"parse error", tool.OpenSession(envs.Task{ID: e.ID}), nil, "cd(folder=", envs.StatusError, "error: cannot parse the call: "},
		{"prose", tool.OpenSession(envs.Task{ID: e.ID}), nil, "I will list the files", envs.StatusError, "error: cannot parse the call: "},
		{"blank", tool.OpenSession(envs.Task{ID: e.ID}), nil, " \n", envs.StatusEmpty, "(no call)"},
		{"empty list", tool.OpenSession(envs.Task{ID: e.ID}), nil, "[ ]", envs.StatusEmpty, "(no call)"},
		{"one failing of two", tool.OpenSession(envs.Task{ID: e.ID}), nil, "[pwd(), cd(folder='nowhere', x=1)]",
			envs.StatusError, "{\"current_working_directory\": \"/lab\"}\n" + ErrorPrefix},
		{"semicolons", tool.OpenSession(envs.Task{ID: e.ID}), nil, "cd(folder='reports'); pwd()",
			envs.StatusOK, "{\"current_working_directory\": \"reports\"}\n{\"current_working_directory\": \"/lab/reports\"}"},
		{"JSON", tool.OpenSession(envs.Task{ID: e.ID}), nil, `{"name": "pwd", "arguments": {}}`, envs.StatusOK, `{"current_working_directory": "/lab"}`},
		{"unknown task", tool.OpenSession(envs.Task{ID: "multi_turn_base_999"}), nil, "pwd()", envs.StatusError, `error: no BFCL entry "multi_turn_base_999"`},
		{"closed session", closed, nil, "pwd()", envs.StatusError, "error: the session is closed"},
		{"zero session", &Session{}, nil, "pwd()", envs.StatusError, "error: the session was not opened"},
		{"canceled context", tool.OpenSession(envs.Task{ID: e.ID}), canceled, "pwd()", envs.StatusError, "error: context canceled"},
		{"without a session", tool, nil, "pwd()", envs.StatusError, "error: BFCL calls need a session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			r := tc.s.Call(ctx, tc.input)
			if r.Status != tc.status || !strings.HasPrefix(r.Output, tc.output) {
				t.Fatalf("got %s %q, want %s %q...", r.Status, r.Output, tc.status, tc.output)
			}
			if (r.Status == envs.StatusError) != (r.Error != "") {
				t.Fatalf("status %s with error %q", r.Status, r.Error)
			}
		})
	}
	r := tool.OpenSession(envs.Task{ID: e.ID}).Call(context.Background(), "cd(folder=")
	if !strings.Contains(r.Output, "cd(folder='document')") {
		t.Errorf("parse error does not show the syntax: %q", r.Output)
	}
}

func TestSessionsIndependent(t *testing.T) {
	e := entryByID(t, "base", "multi_turn_base_0")
	tool := NewTool(testData(t), []Entry{e})
	want := replayResults(t, testData(t), e)
	a := tool.OpenSession(envs.Task{ID: e.ID}).(*Session)
	b := tool.OpenSession(envs.Task{ID: e.ID}).(*Session)
	ctx := context.Background()
	a.Call(ctx, "[cd(folder='reports'), mkdir(dir_name='drafts')]")
	if got := b.Call(ctx, "pwd()").Output; got != `{"current_working_directory": "/lab"}` {
		t.Fatalf("second session sees the first's cd: %s", got)
	}
	if got := b.Call(ctx, "cd(folder='reports')").Output; got != `{"current_working_directory": "reports"}` {
		t.Fatalf("cd in the second session: %s", got)
	}
	if got := a.Call(ctx, "mkdir(dir_name='drafts')").Output; !strings.Contains(got, "File exists") {
		t.Fatalf("first session lost its directory: %s", got)
	}
	// Sessions of one entry replay the ground truth side by side.
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { _, errs[i] = replaySession(tool, e, want) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestStepCalls(t *testing.T) {
	e := entryByID(t, "base", "multi_turn_base_0")
	for _, tc := range []struct {
		name  string
		input string
		want  []string // nil when the block does not parse
	}{
		{"list", "[cd(folder='reports'), ls(a=True)]", []string{"cd(folder='reports')", "ls(a=True)"}},
		{"lines", "cd('reports')\n  sort(file_name=\"summary.txt\")", []string{"cd('reports')", "sort(file_name='summary.txt')"}},
		{"JSON object", `{"name": "echo", "arguments": {"content": "it's \"q\"\nx\u00e9", "file_name": "a.txt"}}`,
			[]string{`echo(content='it\'s "q"\nxé', file_name='a.txt')`}},
		{"JSON array", `[{"name": "cd", "arguments": {"folder": "reports"}}, {"name": "tail", "arguments": "{\"file_name\": \"summary.txt\", \"lines\": 1}"}]`,
			[]string{"cd(folder='reports')", "tail(file_name='summary.txt', lines=1)"}},
		{"numbers", "[mean(numbers=[1, 2.5, 1e-07]), add(a=-3, b=True)]", []string{"mean(numbers=[1, 2.5, 1e-07])", "add(a=-3, b=True)"}},
		{"unparsable", "cd(folder=", nil},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := StepCalls(tc.input)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || (got == nil) != (tc.want == nil) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if got == nil {
				return
			}
			parsed, err := ParseCalls(tc.input)
			if err != nil {
				t.Fatal(err)
			}
			classes := append([]string{"MathAPI"}, e.InvolvedClasses...)
			byString, _ := NewEnv(testData(t), classes, e.InitialConfig, false)
			byCall, _ := NewEnv(testData(t), classes, e.InitialConfig, false)
			for i, c := range got {
				if a, b := byString.Execute(c), byCall.ExecuteCall(parsed[i]); a != b {
					t.Fatalf("call %d: Execute(%s) = %q, the parsed call gives %q", i, c, a, b)
				}
			}
		})
	}
}
