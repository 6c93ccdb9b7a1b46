package atlass

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
)

const (
	gcdSource     = "// gcd returns the greatest common divisor of a and b.\n//\n//\tgcd(12, 18) == 6\nfunc gcd(a, b int) int {\n\tfor b != 0 {\n\t\ta, b = b, a%b\n\t}\n\treturn a\n}"
	reverseSource = "// reverseDigits returns n with its decimal digits in reverse order.\n//\n//\treverseDigits(120) == 21\nfunc reverseDigits(n int) int {\n\tr := 0\n\tfor ; n > 0; n /= 10 {\n\t\tr = r*10 + n%10\n\t}\n\treturn r\n}"
)

// phasesOf lists the phases a transcript went through.
func phasesOf(tr *Transcript) []string {
	var out []string
	for _, p := range tr.Phases {
		out = append(out, p.Phase)
	}
	return out
}

func runTask(t *testing.T, p *Pipeline, prompt string) *Transcript {
	t.Helper()
	tr, err := p.Run(context.Background(), envs.Task{ID: "t1", Prompt: prompt})
	if err != nil {
		t.Fatalf("Run: %v (phases %v)", err, phasesOf(tr))
	}
	return tr
}

func TestNoToolGoesStraightToSolver(t *testing.T) {
	sb := newSandbox(t)
	forEachDB(t, func(t *testing.T, db testDB) {
		srv := serveScript(t, "no_tool.txt")
		code := &recorder{Tool: sb}
		tr := runTask(t, srv.pipeline(db, code), "What is 17 times 23?")
		srv.check(t)
		if got := phasesOf(tr); !slices.Equal(got, []string{"analyze", "plan", "solve"}) {
			t.Errorf("phases = %v, want analyze, plan, solve", got)
		}
		if tr.Status != Solved || tr.Answer != "391" {
			t.Errorf("status %s answer %q (%s), want solved 391", tr.Status, tr.Answer, tr.Message)
		}
		if calls := tr.Solution.Traj.Calls; len(calls) != 1 || calls[0].Result.Output != "391\n" {
			t.Errorf("solver calls = %+v, want one that printed 391", calls)
		}
		if db.Len() != 0 || len(tr.Tools) != 0 {
			t.Errorf("the database holds %d tools and the task used %v; want none", db.Len(), tr.Tools)
		}
	})
}

func TestToolUnderAnotherNameIsSelected(t *testing.T) {
	sb := newSandbox(t)
	forEachDB(t, func(t *testing.T, db testDB) {
		srv := serveScript(t, "selected.txt")
		code := &recorder{Tool: sb}
		id := store(t, db, code, gcdSource, Approved)
		tr := runTask(t, srv.pipeline(db, code), "What is the greatest common divisor of 84 and 36?")
		srv.check(t)
		if got := phasesOf(tr); !slices.Equal(got, []string{"analyze", "plan", "select", "solve"}) {
			t.Errorf("phases = %v, want no generate phase", got)
		}
		sel := srv.Asked("select")
		if len(sel) != 1 || !strings.Contains(lastUser(t, sel[0]), "candidate id 1 (approved): func gcd(a, b int) int") {
			t.Fatalf("the selector was not shown gcd as a candidate: %v", sel)
		}
		if len(tr.Tools) != 1 || tr.Tools[0] != (Provided{Needed: tr.Tools[0].Needed, ID: id, Name: "gcd", How: "selected", State: Approved}) {
			t.Errorf("tools = %+v, want gcd selected", tr.Tools)
		}
		if db.Len() != 1 {
			t.Errorf("the database holds %d tools, want 1: nothing generated", db.Len())
		}
		if tr.Status != Solved || tr.Answer != "12" || tr.Solution.Traj.Calls[0].Result.Output != "12\n" {
			t.Errorf("status %s answer %q calls %+v: want gcd to run from the prelude and print 12", tr.Status, tr.Answer, tr.Solution.Traj.Calls)
		}
		if system, _ := openai.MessageText(srv.Asked("solve")[0].Messages[0].Content); !strings.Contains(system, "func gcd(a, b int) int // gcd returns") || system != tr.Solution.Prompt {
			t.Errorf("the solver's instructions do not list gcd, or differ from the transcript's:\n%s", system)
		}
		if r, _ := db.Get(context.Background(), id); r.Uses != 1 {
			t.Errorf("gcd has %d uses, want 1", r.Uses)
		}
	})
}

func TestGeneratedToolFixedFromFeedbackThenApproved(t *testing.T) {
	sb := newSandbox(t)
	forEachDB(t, func(t *testing.T, db testDB) {
		srv := serveScript(t, "generate_fix.txt")
		code := &recorder{Tool: sb}
		p := srv.pipeline(db, code)
		p.RunID = "runs/atlass-1"
		tr := runTask(t, p, "What is the sum of the digits of 98765?")
		srv.check(t)
		gen := tr.Phases[slices.IndexFunc(tr.Phases, func(l PhaseLog) bool { return l.Phase == "generate" })]
		if len(gen.Attempts) != 2 || gen.Attempts[0].Error == "" || gen.Attempts[1].Error != "" {
			t.Fatalf("generate attempts = %+v, want a refused one then an accepted one", gen.Attempts)
		}
		firstErr := gen.Attempts[0].Error
		if !strings.Contains(firstErr, "digitSum(7)") {
			t.Errorf("the first attempt's error %q does not name the failing example digitSum(7)", firstErr)
		}
		asked := srv.Asked("generate")
		if fed := lastUser(t, asked[1]); !strings.Contains(fed, firstErr) {
			t.Errorf("the second generator request does not feed back %q; it ends with:\n%s", firstErr, fed)
		}
		if tr.Status != AwaitingApproval || tr.Message != "awaiting approval: artist tools approve 1" {
			t.Errorf("status %s message %q, want awaiting approval of tool 1", tr.Status, tr.Message)
		}
		rec, err := db.Get(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if rec.State != Pending || rec.Tool.Name != "digitSum" || rec.Provenance != (Provenance{Task: "t1", Run: "runs/atlass-1", Source: "atlass"}) {
			t.Errorf("stored %+v, want digitSum pending with the task and run as provenance", rec)
		}
		for _, in := range code.calls() {
			if strings.Contains(in, "98765") {
				t.Errorf("the pending tool ran in solving: %q", in)
			}
		}

		// A person approves it; the next run selects it and solves with it.
		if err := db.Approve(context.Background(), 1, "alice"); err != nil {
			t.Fatal(err)
		}
		srv2 := serveScript(t, "reuse.txt")
		tr = runTask(t, srv2.pipeline(db, code), "What is the sum of the digits of 98765?")
		srv2.check(t)
		rec, _ = db.Get(context.Background(), 1)
		if tr.Status != Solved || tr.Answer != "35" || rec.Decider != "alice" || rec.DecidedAt.IsZero() || rec.Uses != 1 {
			t.Errorf("after approval: status %s answer %q, record %+v; want solved 35, approved by alice, used once", tr.Status, tr.Answer, rec)
		}
		calls := code.calls()
		if last := calls[len(calls)-1]; !strings.Contains(last, "func digitSum") || !strings.HasSuffix(last, "fmt.Println(digitSum(98765))") {
			t.Errorf("the solver's snippet did not run after the approved tool's source: %q", last)
		}
	})
}

func TestPendingToolNeverRunsInSolving(t *testing.T) {
	sb := newSandbox(t)
	forEachDB(t, func(t *testing.T, db testDB) {
		srv := serveScript(t, "pending_selected.txt")
		code := &recorder{Tool: sb}
		id := store(t, db, code, reverseSource, Pending)
		before := len(code.calls())
		p := srv.pipeline(db, code)
		tr := runTask(t, p, "Reverse the digits of 1234.")
		srv.check(t)
		if tr.Status != AwaitingApproval || tr.Message != "awaiting approval: artist tools approve 1" || tr.Solution != nil {
			t.Errorf("status %s message %q solution %v, want awaiting approval and no solution", tr.Status, tr.Message, tr.Solution)
		}
		if n := len(srv.Asked("solve")); n != 0 {
			t.Errorf("the solver was asked %d times", n)
		}
		if got := code.calls()[before:]; len(got) != 0 {
			t.Errorf("code ran after the tool was stored: %q", got)
		}

		t.Run("Solve refuses it", func(t *testing.T) {
			_, err := p.Solve(context.Background(), envs.Task{Prompt: "Reverse 1234."}, []int64{id})
			if !errors.Is(err, ErrNotApproved) || !strings.Contains(err.Error(), "artist tools approve 1") {
				t.Errorf("Solve = %v, want ErrNotApproved naming the approve command", err)
			}
			if r, _ := db.Get(context.Background(), id); r.Uses != 0 || len(code.calls()) != before {
				t.Errorf("the refused tool was used (%d uses, %d calls)", r.Uses, len(code.calls())-before)
			}
		})
		t.Run("not in the prelude of other tasks", func(t *testing.T) {
			tool := &preludeTool{inner: code}
			if r := tool.Call(context.Background(), "fmt.Println(reverseDigits(1234))"); r.Status != envs.StatusError {
				t.Errorf("a snippet calling the pending tool got %+v, want an error: the tool is not defined", r)
			}
		})
	})
}

func TestAutoApproveIsRecorded(t *testing.T) {
	sb := newSandbox(t)
	forEachDB(t, func(t *testing.T, db testDB) {
		srv := serveScript(t, "auto_approve.txt")
		code := &recorder{Tool: sb}
		p := srv.pipeline(db, code)
		p.AutoApprove, p.Approver = true, "nightly-rl"
		tr := runTask(t, p, "What is 10 factorial?")
		srv.check(t)
		if tr.Status != Solved || tr.Answer != "3628800" {
			t.Fatalf("status %s answer %q (%s), want solved 3628800", tr.Status, tr.Answer, tr.Message)
		}
		rec, _ := db.Get(context.Background(), 1)
		if rec.State != Approved || rec.Decider != "nightly-rl" || rec.Uses != 1 {
			t.Errorf("record %+v, want approved by nightly-rl and used once", rec)
		}
		path, err := tr.Save(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `auto-approved by \"nightly-rl\"`) {
			t.Errorf("the saved transcript does not say the tool was auto-approved:\n%s", data)
		}
	})
}

func TestMalformedReplyFedBack(t *testing.T) {
	srv := serveScript(t, "malformed.txt")
	tr := runTask(t, srv.pipeline(newMemDB(), &recorder{Tool: newSandbox(t)}), "What is 2 + 3?")
	srv.check(t)
	if tr.Status != Solved || tr.Answer != "5" {
		t.Fatalf("status %s answer %q (%s), want solved 5", tr.Status, tr.Answer, tr.Message)
	}
	for i, phase := range []string{"analyze", "plan"} {
		log := tr.Phases[i]
		if log.Phase != phase || len(log.Attempts) != 2 || log.Attempts[0].Error == "" {
			t.Fatalf("%s log = %+v, want a refused attempt then an accepted one", phase, log)
		}
		if fed := lastUser(t, srv.Asked(phase)[1]); !strings.Contains(fed, log.Attempts[0].Error) {
			t.Errorf("%s: the retry does not feed back %q:\n%s", phase, log.Attempts[0].Error, fed)
		}
	}
	if e := tr.Phases[1].Attempts[0].Error; !strings.Contains(e, `"needs_tools" is true but "tools" is empty`) {
		t.Errorf("plan refusal = %q, want the validation error", e)
	}
}

func TestPhaseGivesUp(t *testing.T) {
	srv := serveScript(t, "gives_up.txt")
	tr := runTask(t, srv.pipeline(newMemDB(), &recorder{Tool: newSandbox(t)}), "What is 2 + 3?")
	srv.check(t)
	if tr.Status != Failed || !strings.Contains(tr.Message, "analyze: no acceptable reply in 3 attempts") {
		t.Errorf("status %s message %q, want failed in analyze after 3 attempts", tr.Status, tr.Message)
	}
	wants := []string{"holds no JSON object", `"subtasks" is empty`, `unknown field "answer"`}
	for i, a := range tr.Phases[0].Attempts {
		if !strings.Contains(a.Error, wants[i]) {
			t.Errorf("attempt %d error %q, want %q", i+1, a.Error, wants[i])
		}
	}
}

func TestServerFailureIsAnError(t *testing.T) {
	srv := serveScript(t) // answers every request 400
	tr, err := srv.pipeline(newMemDB(), &recorder{Tool: newSandbox(t)}).Run(context.Background(), envs.Task{Prompt: "2 + 3?"})
	if err == nil || errors.Is(err, ErrGaveUp) || tr.Status != Failed {
		t.Errorf("Run = %v, status %s; want the server's error", err, tr.Status)
	}
}

func TestTranscriptSave(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ id, file string }{
		{"", "task.json"},
		{"arith/17", "arith_17.json"},
		{"..", "task.json"},
		{"ü 1", "__1.json"},
	}
	for i, c := range cases {
		tr := &Transcript{Task: envs.Task{ID: c.id, Prompt: "p"}, Status: Solved}
		if got := tr.File(); got != c.file {
			t.Errorf("case %d: File() = %q, want %q", i, got, c.file)
		}
	}
	tr := &Transcript{Task: envs.Task{ID: "a", Prompt: "x < y"}, Status: Failed, Phases: []PhaseLog{{Phase: "analyze"}}}
	path, err := tr.Save(dir)
	if err != nil {
		t.Fatal(err)
	}
	var back Transcript
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &back); err != nil || back.Task.Prompt != "x < y" || !strings.Contains(string(data), "x < y") {
		t.Errorf("saved %s: %v %+v", data, err, back)
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, ".*")); len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

func TestGeneratedNameTaken(t *testing.T) {
	sb := newSandbox(t)
	forEachDB(t, func(t *testing.T, db testDB) {
		srv := serveScript(t, "generate_taken.txt")
		code := &recorder{Tool: sb}
		store(t, db, code, gcdSource, Approved)
		tr := runTask(t, srv.pipeline(db, code), "What is the greatest common divisor of 84 and 36, by subtraction?")
		srv.check(t)
		asked := srv.Asked("generate")
		if len(asked) != 2 || !strings.Contains(lastUser(t, asked[1]), "a tool named gcd is already stored (id 1, approved): func gcd(a, b int) int") {
			t.Fatalf("the second generator request does not say the name is taken: %v", asked)
		}
		if tr.Status != AwaitingApproval || len(tr.Tools) != 1 || tr.Tools[0].Name != "subtractiveGCD" || db.Len() != 2 {
			t.Errorf("status %s tools %+v (%d stored), want subtractiveGCD pending", tr.Status, tr.Tools, db.Len())
		}
	})
}

// brokenAdd is a database whose Add fails as a full disk would.
type brokenAdd struct{ testDB }

func (brokenAdd) Add(context.Context, envs.Tool, toollib.Tool, Provenance, State) (int64, error) {
	return 0, errors.New("disk I/O error")
}

func TestDatabaseFailureIsAnError(t *testing.T) {
	srv := serveScript(t, "generate_once.txt")
	tr, err := srv.pipeline(brokenAdd{newMemDB()}, &recorder{Tool: newSandbox(t)}).Run(context.Background(), envs.Task{Prompt: "10!?"})
	srv.check(t)
	if err == nil || errors.Is(err, ErrGaveUp) || !strings.Contains(err.Error(), "disk I/O error") || tr.Status != Failed {
		t.Errorf("Run = %v, status %s; want the database's error, not a retry", err, tr.Status)
	}
	if gen := tr.Phases[len(tr.Phases)-1]; gen.Phase != "generate" || len(gen.Attempts) != 1 || gen.Error == "" {
		t.Errorf("generate log = %+v, want one attempt and the error", gen)
	}
}
