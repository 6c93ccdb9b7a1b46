package bfcl

import (
	"testing"
)

func TestGroundTruthScoresFull(t *testing.T) {
	eachSource(t, func(t *testing.T, s source, ds *dataSet) {
		for _, cat := range Categories {
			t.Run(cat, func(t *testing.T) {
				es := ds.of(t, cat)
				if len(es) != s.perCategory[cat] {
					t.Fatalf("%d entries, want %d", len(es), s.perCategory[cat])
				}
				var vs []Verdict
				for _, e := range es {
					v := Check(ds.d, e, e.GroundTruthTurns())
					if !v.Valid {
						t.Errorf("%s: %s %s", e.ID, v.ErrorType, v.Message)
					}
					vs = append(vs, v)
				}
				if acc := Accuracy(vs); acc != 1 {
					t.Errorf("accuracy %.4f, want 1", acc)
				}
			})
		}
	})
}

func TestDropLastCallFails(t *testing.T) {
	eachSource(t, func(t *testing.T, _ source, ds *dataSet) {
		es := ds.of(t, "base")
		failed := 0
		for _, e := range es {
			turns := e.GroundTruthTurns()
			for i := len(turns) - 1; i >= 0; i-- {
				if len(turns[i]) > 0 {
					last := turns[i][0]
					turns[i][0] = last[:len(last)-1]
					break
				}
			}
			if !Check(ds.d, e, turns).Valid {
				failed++
			}
		}
		rate := float64(failed) / float64(len(es))
		t.Logf("dropping the last call fails %d/%d base entries (%.1f%%)", failed, len(es), 100*rate)
		if rate < 0.99 {
			t.Errorf("failure rate %.3f, want >= 0.99", rate)
		}
	})
}

func entryByID(t *testing.T, cat, id string) Entry {
	t.Helper()
	for _, e := range testEntries(t, cat) {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no entry %s", id)
	return Entry{}
}

func TestCheckHandMade(t *testing.T) {
	// multi_turn_base_0 ground truth (fixture):
	// 0: cd(folder='reports'), mkdir(dir_name='drafts'), mv(source='summary.txt', destination='drafts')
	// 1: cd(folder='drafts'), grep(file_name='summary.txt',pattern='budget')
	// 2: sort('summary.txt')
	// 3: cd(folder='..'), mv(...notes.txt...), cd(folder='drafts'), diff(...)
	e := entryByID(t, "base", "multi_turn_base_0")
	gt := e.GroundTruthTurns()
	edit := func(f func(turns [][][]string) [][][]string) [][][]string {
		c := make([][][]string, len(gt))
		for i, steps := range gt {
			for _, s := range steps {
				c[i] = append(c[i], append([]string(nil), s...))
			}
		}
		return f(c)
	}
	for _, tc := range []struct {
		name  string
		turns [][][]string
		want  string // "" for a pass
		turn  int
	}{
		{"ground truth", gt, "", -1},
		{"extra read-only calls", edit(func(c [][][]string) [][][]string {
			c[0][0] = append([]string{"pwd()", "ls(a=True)"}, c[0][0]...)
			return c
		}), "", -1},
		{"split into steps and JSON calls", edit(func(c [][][]string) [][][]string {
			c[0] = [][]string{{`{"name": "cd", "arguments": {"folder": "reports"}}`}, {"mkdir(dir_name='drafts')", "mv(source='summary.txt', destination='drafts')"}}
			return c
		}), "", -1},
		{"too few turns", gt[:3], ErrTurnCount, -1},
		{"empty turn", edit(func(c [][][]string) [][][]string { c[2] = nil; return c }), ErrEmptyTurn, 2},
		{"single empty step", edit(func(c [][][]string) [][][]string { c[2] = [][]string{{}}; return c }), ErrEmptyTurn, 2},
		{"wrong directory name", edit(func(c [][][]string) [][][]string {
			c[0][0] = []string{"cd(folder='reports')", "mkdir(dir_name='tmp')", "mv(source='summary.txt', destination='tmp')"}
			return c
		}), ErrState, 0},
		{"state right, result missing", edit(func(c [][][]string) [][][]string {
			c[1][0] = []string{"cd(folder='drafts')", "cat(file_name='summary.txt')"}
			return c
		}), ErrResponse, 1},
		{"failed call leaves the results short", edit(func(c [][][]string) [][][]string {
			c[2][0] = []string{"sort(file='summary.txt')"}
			return c
		}), ErrResponse, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(testData(t), e, tc.turns)
			if tc.want == "" {
				if !v.Valid {
					t.Fatalf("want a pass, got %s: %s", v.ErrorType, v.Message)
				}
				return
			}
			if v.Valid || v.ErrorType != tc.want || v.Turn != tc.turn {
				t.Fatalf("got valid=%v %s at turn %d (%s), want %s at turn %d", v.Valid, v.ErrorType, v.Turn, v.Message, tc.want, tc.turn)
			}
		})
	}
}

func TestMissingFunctionFlow(t *testing.T) {
	e := entryByID(t, "miss_func", "multi_turn_miss_func_0") // sort withheld until turn 3
	if got := e.Withheld(0); len(got) != 1 || got[0] != "sort" {
		t.Errorf("withheld at turn 0: %v", got)
	}
	if got := e.Withheld(3); len(got) != 0 {
		t.Errorf("withheld at turn 3: %v", got)
	}
	if m := e.Messages(3); len(m) != 1 || m[0].Content != AddedFunctionsMessage {
		t.Errorf("turn 3 messages: %v", m)
	}
	if len(e.GroundTruth[2]) != 0 || len(e.GroundTruth[3]) == 0 {
		t.Fatalf("want an empty turn 2 and the sort at turn 3, got %v", e.GroundTruth)
	}
	turns := e.GroundTruthTurns()
	// A read-only call in the turn that expects none is not penalised.
	turns[2] = [][]string{{"pwd()"}}
	if v := Check(testData(t), e, turns); !v.Valid {
		t.Errorf("read-only call in an empty turn failed: %s", v.Message)
	}
	// Saying nothing when the function comes back fails that turn.
	turns = e.GroundTruthTurns()
	turns[3] = nil
	if v := Check(testData(t), e, turns); v.Valid || v.ErrorType != ErrEmptyTurn || v.Turn != 3 {
		t.Errorf("got %+v, want an empty-turn failure at turn 3", v)
	}
}

func TestMissingResultsMultiplicity(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want, got []string
		missing   int
	}{
		{"all found", []string{"a", "b"}, []string{"b", "x", "a"}, 0},
		{"duplicate needs two", []string{"None", "None"}, []string{"None"}, 1},
		{"duplicate satisfied", []string{"None", "None"}, []string{"None", "y", "None"}, 0},
		{"none", []string{"a"}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := missingResults(tc.want, tc.got); len(got) != tc.missing {
				t.Errorf("missing %v, want %d", got, tc.missing)
			}
		})
	}
}
