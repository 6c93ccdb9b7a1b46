package library

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func loadFixture(t *testing.T) *Library {
	t.Helper()
	lib, err := Load(filepath.Join("testdata", "demos.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func newSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

func TestParseErrors(t *testing.T) {
	good := `{"id":"a","family":"arith","description":"d","input":"q","steps":[],"answer":"1"}`
	cases := []struct {
		name, text, want string
	}{
		{"unknown field", good + "\n" + `{"id":"b","family":"arith","input":"q","answer":"1","tool":"x"}`, `lib.jsonl:2: not a demonstration: json: unknown field "tool"`},
		{"duplicate id", good + "\n\n" + good, `lib.jsonl:3: id "a" is already used on line 1`},
		{"no family", `{"id":"a","input":"q","answer":"1"}`, "lib.jsonl:1: demonstration a: family is empty"},
		{"no answer", `{"id":"a","family":"f","input":"q"}`, "lib.jsonl:1: demonstration a: answer is empty"},
		{"call without tool", `{"id":"a","family":"f","input":"q","answer":"1","steps":[{"call":"x"}]}`, "step 1 has a call or result but no tool"},
		{"tool without call", `{"id":"a","family":"f","input":"q","answer":"1","steps":[{"tool":"sandbox"}]}`, "step 1 names tool sandbox but has no call"},
		{"empty step", `{"id":"a","family":"f","input":"q","answer":"1","steps":[{}]}`, "step 1 is empty"},
		{"two objects", good + good, "lib.jsonl:1: more than one JSON object"},
		{"not json", "{id: a}", "lib.jsonl:1: not a demonstration"},
	}
	for i, c := range cases {
		_, err := Parse(strings.NewReader(c.text), "lib.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d (%s): err %v, want it to contain %q", i, c.name, err, c.want)
		}
	}
}

func TestLoadFixture(t *testing.T) {
	lib := loadFixture(t)
	if len(lib.Demos) != 4 || lib.Demos[2].ID != "sub-coins" || lib.Demos[2].Line != 3 {
		t.Fatalf("loaded %+v", lib.Demos)
	}
}

func TestValidateFixturePasses(t *testing.T) {
	if err := Validate(context.Background(), loadFixture(t), Tools{"sandbox": newSandbox(t)}); err != nil {
		t.Fatal(err)
	}
}

// TestValidateCatches breaks one recorded result and one tool name and
// requires each problem to be reported with the record's id and line.
func TestValidateCatches(t *testing.T) {
	lib := loadFixture(t)
	lib.Demos[0].Steps[0].Result = "178378\n" // a result no tool returned
	lib.Demos[2].Steps[0].Tool = "calculator" // a tool the registry lacks
	err := Validate(context.Background(), lib, Tools{"sandbox": newSandbox(t)})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err %v, want a *ValidationError", err)
	}
	want := []struct {
		id   string
		line int
		why  []string
	}{
		{"mul-boxes", 1, []string{"recorded result differs", `want "178378\n"`, `got  "178377\n"`}},
		{"sub-coins", 3, []string{`tool "calculator" is not in the registry (have: sandbox)`}},
	}
	if len(ve.Problems) != len(want) {
		t.Fatalf("problems %+v, want %d", ve.Problems, len(want))
	}
	for i, w := range want {
		p := ve.Problems[i]
		if p.ID != w.id || p.Line != w.line || p.Step != 1 {
			t.Errorf("case %d: problem %+v, want id %s line %d step 1", i, p, w.id, w.line)
		}
		for _, s := range w.why {
			if !strings.Contains(p.Why, s) {
				t.Errorf("case %d: why %q lacks %q", i, p.Why, s)
			}
		}
	}
	if msg := err.Error(); !strings.Contains(msg, "testdata/demos.jsonl:1: mul-boxes step 1") || !strings.Contains(msg, "testdata/demos.jsonl:3: sub-coins step 1") {
		t.Errorf("message does not name the records:\n%s", msg)
	}
}

// counter is a SessionTool whose sessions count their calls: a session
// per demonstration gives 1, 2, ... within it.
type counter struct{ opened int }

type counterSession struct{ n *int }

func (c *counter) Call(context.Context, string) envs.Result { return envs.Result{Output: "shared"} }
func (c *counter) OpenSession(envs.Task) envs.ToolSession {
	c.opened++
	return &counterSession{n: new(int)}
}
func (s *counterSession) Call(context.Context, string) envs.Result {
	*s.n++
	return envs.Result{Status: envs.StatusOK, Output: strings.Repeat("x", *s.n)}
}
func (s *counterSession) Close() error { return nil }

func TestValidateSessionPerDemonstration(t *testing.T) {
	text := `{"id":"a","family":"f","input":"q","answer":"1","steps":[{"tool":"c","call":"1","result":"x"},{"tool":"c","call":"2","result":"xx"}]}
{"id":"b","family":"f","input":"q","answer":"1","steps":[{"tool":"c","call":"1","result":"x"}]}`
	lib, err := Parse(strings.NewReader(text), "s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{}
	if err := Validate(context.Background(), lib, Tools{"c": c}); err != nil {
		t.Fatal(err)
	}
	if c.opened != 2 {
		t.Errorf("opened %d sessions, want one per demonstration (2)", c.opened)
	}
}

func TestSelect(t *testing.T) {
	ix := NewIndex(loadFixture(t))
	cases := []struct {
		family, text string
		k            int
		want         []string
		transfer     []bool
	}{
		// The boxes problem shares "boxes", "hold", "each", "how", "many".
		{"arith", "12 boxes hold 7 pens each. How many pens?", 1, []string{"mul-boxes"}, []bool{false}},
		{"arith", "A jar holds 40 coins. 12 are taken out. How many coins are left?", 2, []string{"sub-coins", "add-apples"}, []bool{false, false}},
		// Nothing of arith is similar: the similar strings demonstration
		// comes before the unrelated arith ones.
		{"arith", "Reverse the string drawer.", 2, []string{"rev-word", "mul-boxes"}, []bool{true, false}},
		// A family with no demonstrations borrows the most similar ones.
		{"math", "Ann has 3 apples and buys 4 more apples.", 1, []string{"add-apples"}, []bool{true}},
		// A task's own demonstration is never selected.
		{"arith", "37 boxes hold 4821 nails each. How many nails?", 1, []string{"add-apples"}, []bool{false}},
		{"arith", "anything", 10, []string{"mul-boxes", "add-apples", "sub-coins", "rev-word"}, []bool{false, false, false, true}},
	}
	for i, c := range cases {
		got := mustSelect(t, ix, c.family, c.text, c.k)
		var ids []string
		var tr []bool
		for _, m := range got {
			ids, tr = append(ids, m.Demo.ID), append(tr, m.Transfer)
		}
		if !reflect.DeepEqual(ids, c.want) || !reflect.DeepEqual(tr, c.transfer) {
			t.Errorf("case %d: selected %v (transfer %v), want %v (%v)", i, ids, tr, c.want, c.transfer)
		}
		for j := 1; j < len(got); j++ {
			if got[j-1].Transfer == got[j].Transfer && got[j-1].Score > 0 == (got[j].Score > 0) && got[j-1].Score < got[j].Score {
				t.Errorf("case %d: scores out of order: %v", i, got)
			}
		}
	}
}

// mustSelect is ix.Select of a live context, failing t on an error.
func mustSelect(t *testing.T, ix *Index, family, text string, k int) []Match {
	t.Helper()
	ms, err := ix.Select(context.Background(), family, text, k)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestBM25PrefersRareWords(t *testing.T) {
	lib, err := Parse(strings.NewReader(`{"id":"common","family":"f","input":"how many how many how many","answer":"1"}
{"id":"rare","family":"f","input":"how many zebras","answer":"1"}
{"id":"other","family":"f","input":"how much","answer":"1"}`), "b.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got := mustSelect(t, NewIndex(lib), "f", "how many zebras live here", 3)
	if got[0].Demo.ID != "rare" || !(got[0].Score > got[1].Score) {
		t.Errorf("got %+v, want rare first with the higher score", got)
	}
}

// TestPromptGolden renders the demonstrations chosen for a task before it,
// in both syntaxes, against testdata/prompt_*.golden.
func TestPromptGolden(t *testing.T) {
	ix := NewIndex(loadFixture(t))
	task := envs.Task{ID: "t", Prompt: "A jar holds 40 coins. 12 are taken out. How many coins are left?"}
	for _, syn := range []Syntax{SyntaxTags, SyntaxART} {
		got := Prefix(mustSelect(t, ix, "arith", task.Prompt, 2), format.DefaultFormat(), syn) + rollout.PromptText(task)
		path := filepath.Join("testdata", "prompt_"+string(syn)+".golden")
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s prompt:\n%s\nwant:\n%s", syn, got, want)
		}
	}
}

// TestRolloutRoundTrip turns the fixture into warm-start solutions and
// back: nothing is lost, and the tool results are the masked segments.
func TestRolloutRoundTrip(t *testing.T) {
	f := format.DefaultFormat()
	for i, d := range loadFixture(t).Demos {
		r := ToRollout(d, f)
		for _, s := range r.Segments {
			if s.Tool && !strings.HasPrefix(s.Text, "<output>") {
				t.Errorf("case %d: masked segment %q is not a result block", i, s.Text)
			}
		}
		back, err := FromRollout(r, f, d.Family, "sandbox")
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		back.Description, back.Line = d.Description, d.Line
		if !reflect.DeepEqual(back, d) {
			t.Errorf("case %d: round trip\n got %+v\nwant %+v", i, back, d)
		}
	}
}

func TestFromRolloutErrors(t *testing.T) {
	f := format.DefaultFormat()
	task := envs.Task{ID: "t", Prompt: "q"}
	cases := []struct {
		segs []rollout.Segment
		want string
	}{
		{[]rollout.Segment{{Text: "hello <answer>1</answer>"}}, "stands outside the tags"},
		{[]rollout.Segment{{Text: "<code>x</code>"}}, "last call has no result"},
		{[]rollout.Segment{{Text: "<think>x</think>"}, {Text: "<output>1</output>\n", Tool: true}}, "is not the result of a call"},
		{[]rollout.Segment{{Text: "<think>x</think>"}}, "has no answer block"},
		{[]rollout.Segment{{Text: "<answer>1</answer><think>x</think>"}}, "after the answer"},
		{[]rollout.Segment{{Text: "<think>x"}}, "think block is not closed"},
	}
	for i, c := range cases {
		_, err := FromRollout(rollout.Demo{Task: task, Segments: c.segs}, f, "arith", "sandbox")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: err %v, want %q", i, err, c.want)
		}
	}
}

func TestAppendRenamesTakenIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lib.jsonl")
	d := Demo{ID: "x", Family: "f", Input: "q", Answer: "1"}
	for i, want := range [][]string{{"x"}, {"x-2", "x-3"}} {
		batch := []Demo{d}
		if i == 1 {
			batch = []Demo{d, d}
		}
		ids, err := Append(path, batch)
		if err != nil || !reflect.DeepEqual(ids, want) {
			t.Fatalf("case %d: ids %v err %v, want %v", i, ids, err, want)
		}
	}
	lib, err := Load(path)
	if err != nil || len(lib.Demos) != 3 {
		t.Fatalf("lib %+v err %v", lib, err)
	}
}
