package fcsynth

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
)

// fixture is the BFCL v3 documentation shipped with the repository.
const fixture = "../../testdata/bfcl_v3"

func testConfig() Config {
	c := DefaultConfig()
	c.Data, c.Train, c.Heldout = fixture, 300, 100
	return c
}

func openFixture(t testing.TB, c Config) *Set {
	t.Helper()
	d, err := bfcl.Load(c.Data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Split(d, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newGenerator(t testing.TB) *Generator {
	t.Helper()
	d, err := bfcl.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGenerator(d, Options{MaxTurns: 3, Functions: 3, Docs: bfcl.DocsSignatures})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGenerateDeterministic: a seed gives the same conversations every
// time; another seed gives others.
func TestGenerateDeterministic(t *testing.T) {
	g := newGenerator(t)
	e1, t1, err := g.Generate(7, 50, "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	e2, t2, _ := g.Generate(7, 50, "x", nil)
	if !reflect.DeepEqual(t1, t2) || entriesText(e1) != entriesText(e2) {
		t.Fatal("the same seed gave different conversations")
	}
	_, t3, _ := g.Generate(8, 50, "x", nil)
	same := 0
	for i := range t1 {
		if Key(t1[i]) == Key(t3[i]) {
			same++
		}
	}
	if same > 5 {
		t.Errorf("seeds 7 and 8 share %d of 50 conversations", same)
	}
}

// entriesText renders entries with their initial configs' contents.
func entriesText(es []bfcl.Entry) string {
	var b strings.Builder
	for _, e := range es {
		cfg := "None"
		if e.InitialConfig != nil {
			cfg = bfcl.PyRepr(e.InitialConfig)
		}
		fmt.Fprintln(&b, e.ID, e.Category, e.InvolvedClasses, e.Question, e.GroundTruth, cfg)
	}
	return b.String()
}

// TestGenerateShape: every conversation has one to three turns of one
// call each, offers the functions it calls and no more than Functions
// of them (more only when it calls more), and its prompt is laid out as
// bfcl.Tasks lays out entries.
func TestGenerateShape(t *testing.T) {
	g := newGenerator(t)
	es, ts, err := g.Generate(3, 200, "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	turns := map[int]int{}
	for i, e := range es {
		n := len(e.GroundTruth)
		turns[n]++
		if n < 1 || n > 3 || len(ts[i].Turns) != n-1 || len(e.Question) != n {
			t.Fatalf("case %d: %d turns, %d later user turns, %d questions", i, n, len(ts[i].Turns), len(e.Question))
		}
		docs, msg, ok := strings.Cut(strings.TrimPrefix(ts[i].Prompt, "Functions:\n"), "\n\n")
		if !ok || msg != e.Question[0][0].Content {
			t.Fatalf("case %d: prompt %q is not functions, a blank line and the first message", i, ts[i].Prompt)
		}
		offered := strings.Split(docs, "\n")
		distinct := map[string]bool{}
		for _, turn := range e.GroundTruth {
			if len(turn) != 1 {
				t.Fatalf("case %d: a turn of %d calls", i, len(turn))
			}
			name := bfcl.CallNames(turn)[0]
			distinct[name] = true
			if !strings.Contains(docs, name+"(") {
				t.Errorf("case %d: %s is called but not offered in %q", i, name, docs)
			}
		}
		if len(offered) != max(3, len(distinct)) {
			t.Errorf("case %d: %d functions offered for %d called", i, len(offered), len(distinct))
		}
	}
	for n := 1; n <= 3; n++ {
		if turns[n] == 0 {
			t.Errorf("no conversation of %d turns in 200: %v", n, turns)
		}
	}
}

// TestSplitDisjoint: no held-out conversation is in the training pool,
// even when the training seed would draw it (Generate redraws excluded
// keys), and IDs are unique across the splits.
func TestSplitDisjoint(t *testing.T) {
	s := openFixture(t, testConfig())
	held := map[string]bool{}
	for _, h := range s.Heldout() {
		held[Key(h)] = true
	}
	ids := map[string]bool{}
	for _, tk := range append(append([]envs.Task(nil), s.trainTasks...), s.heldoutTasks...) {
		if ids[tk.ID] {
			t.Fatalf("ID %s twice", tk.ID)
		}
		ids[tk.ID] = true
	}
	for _, tk := range s.trainTasks {
		if held[Key(tk)] {
			t.Errorf("training conversation %s is also held out", tk.ID)
		}
	}
	g := newGenerator(t)
	_, first, _ := g.Generate(5, 40, "x", nil)
	exclude := map[string]bool{}
	for _, tk := range first {
		exclude[Key(tk)] = true
	}
	_, again, err := g.Generate(5, 40, "x", exclude)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range again {
		if exclude[Key(tk)] {
			t.Errorf("excluded conversation drawn again: %q", Key(tk))
		}
	}
}
