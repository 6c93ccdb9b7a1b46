package taubench

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/pyval"
)

func TestConvertTasksLiterals(t *testing.T) {
	src := `from tau_bench.types import Task, Action  # the models
TASKS = [
    Task(annotator='a', user_id="u", instruction="say \"hi\"\n" 'and bye\x21 \u00e9',
         actions=[Action(name="calc", kwargs={"n": -3, "f": 1.50, "e": 1e3, "b": True, "z": None, "t": (1, 2), "l": [], "k": {}})],
         outputs=["1,000"],),
]
`
	v, err := ConvertTasks(src)
	if err != nil {
		t.Fatal(err)
	}
	got := pyval.MustJSON(v)
	want := `[{"annotator": "a", "user_id": "u", "instruction": "say \"hi\"\nand bye! \u00e9", "actions": [{"name": "calc", "kwargs": ` +
		`{"n": -3, "f": 1.5, "e": 1000.0, "b": true, "z": null, "t": [1, 2], "l": [], "k": {}}}], "outputs": ["1,000"]}]`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestConvertErrors(t *testing.T) {
	for i, tc := range []struct{ src, want string }{
		{"TASKS = [Task(user_id='u')]", "missing the field annotator"},
		{"TASKS = [Task(annotator='', user_id='u', instruction='', actions=[], outputs=[], extra=1)]", "no field extra"},
		{"TASKS = [Action(name='x', kwargs={})]", "want a Task(...) call"},
		{"TASKS = [Task(annotator='', user_id='u', instruction='', actions=[Action(name='x')], outputs=[])]", "missing the field kwargs"},
		{"TASKS = [Task(annotator='', user_id='u', instruction='', actions=[Action(name='x', kwargs={'a': f(1)})], outputs=[])]", "call of f"},
		{"A = []\nB = []", "exactly one name"},
		{"TASKS = {}", "must be a list"},
		{"TASKS = [x]", "name x is not a literal"},
		{"TASKS = ['abc", "unterminated string"},
		{"TASKS = [1 2]", `expected "]"`},
		{"def f(): pass", "only imports"},
		{"TASKS = [b'x']", "prefix"},
		{"TASKS = [007]", "leading zeros"},
	} {
		_, err := ConvertTasks(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("case %d: error %v, want one containing %q", i, err, tc.want)
		}
	}
	if _, err := ConvertRules("RULES = ['a', 2]"); err == nil || !strings.Contains(err.Error(), "rule 1 is not a string") {
		t.Errorf("rules error: %v", err)
	}
}
