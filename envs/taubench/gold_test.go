package taubench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/internal/pyval"
)

// taskFiles lists every task file: domain, split, number of tasks.
var taskFiles = []struct {
	domain, split string
	tasks         int
}{
	{Airline, "test", 50},
	{Retail, "test", 115},
	{Retail, "dev", 20},
	{Retail, "train", 500},
}

// goldAgent is the scripted agent of the tests: it plays actions (the
// terminate tool held back), then says each of says, then ends the
// episode: with transfer_to_human_agents when actions hold it, else by a
// last message the scripted user answers with StopMarker.
func goldAgent(t testing.TB, d *Domain, task Task, actions []Action, says []string) Outcome {
	t.Helper()
	ctx := context.Background()
	user := &ScriptedUser{Utterances: []string{"I need help with my account."}}
	for range says {
		user.Utterances = append(user.Utterances, "Thanks, go on.")
	}
	ep, _, err := NewEpisode(ctx, d, task, user)
	if err != nil {
		t.Fatal(err)
	}
	ep.MaxSteps = len(actions) + len(says) + 2
	var terminate *Action
	for i, a := range actions {
		if a.Name == TerminateTool {
			terminate = &actions[i]
			continue
		}
		step(t, ep, a)
	}
	for _, s := range says {
		step(t, ep, respond(s))
	}
	if terminate != nil {
		step(t, ep, *terminate)
	} else {
		step(t, ep, respond("Your request is complete. Is there anything else?"))
	}
	if !ep.Done() {
		t.Fatalf("episode not done after the scripted agent's last action")
	}
	return ep.Outcome()
}

func step(t testing.TB, ep *Episode, a Action) {
	t.Helper()
	if _, _, err := ep.Step(context.Background(), pyvalCopy(a)); err != nil {
		t.Fatalf("step %s: %v", a.Name, err)
	}
}

func pyvalCopy(a Action) Action {
	return Action{Name: a.Name, Kwargs: pyval.DeepCopy(a.Kwargs).(*pyval.Dict)}
}

func respond(text string) Action {
	return Action{Name: Respond, Kwargs: pyval.NewDict("content", text)}
}

// goldCase is one task with its domain and gold hash.
type goldCase struct {
	name string
	d    *Domain
	task Task
	gold string
}

func goldCases(t *testing.T) []goldCase {
	t.Helper()
	root := datadir.Require(t, "tau_bench")
	var cases []goldCase
	for _, tf := range taskFiles {
		d := loadDomain(t, filepath.Join(root, tf.domain), tf.domain)
		tasks, err := LoadTasks(filepath.Join(root, tf.domain, "tasks_"+tf.split+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != tf.tasks {
			t.Fatalf("%s %s: %d tasks, want %d", tf.domain, tf.split, len(tasks), tf.tasks)
		}
		for i, task := range tasks {
			gold, err := GoldHash(d, task)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, goldCase{name: tf.domain + "_" + tf.split + "_" + pyval.Str(int64(i)), d: d, task: task, gold: gold})
		}
	}
	if len(cases) != 685 {
		t.Fatalf("%d tasks, want 685", len(cases))
	}
	return cases
}

// TestGoldAgentReward plays every task's gold actions and says its
// outputs: the reward must be 1 on all 685 tasks, and every component 1.
func TestGoldAgentReward(t *testing.T) {
	for _, c := range goldCases(t) {
		o := goldAgent(t, c.d, c.task, c.task.Actions, c.task.Outputs)
		comps := Components(c.d, c.task, o, c.gold)
		for name, v := range comps {
			if v != 1 {
				t.Errorf("%s: %s = %v, want 1", c.name, name, v)
			}
		}
	}
}

// writeActions returns the indices of the gold actions that change the
// database when the gold actions are replayed in order.
func writeActions(d *Domain, actions []Action) []int {
	env := d.NewEnv()
	prev := env.Hash()
	var out []int
	for i, a := range actions {
		env.Call(a.Name, a.Kwargs)
		if h := env.Hash(); h != prev {
			out = append(out, i)
			prev = h
		}
	}
	return out
}

// undoneWrites lists the gold write actions whose effect a later gold
// action undoes, so that the gold database is the same without them: in
// retail test task 22 the user's address is changed and later set back.
var undoneWrites = map[string]int{"retail_test_22": 1}

// TestBrokenGoldScoresZero drops each write action in turn, or sends it to
// a record that does not exist, or passes one of its numbers as a float
// where the gold has an int: each must score 0, except for the writes that
// a later action undoes (undoneWrites), which must still score 1. Saying
// nothing of a required output must score 0 too.
func TestBrokenGoldScoresZero(t *testing.T) {
	writes, outputs := 0, 0
	for _, c := range goldCases(t) {
		for _, i := range writeActions(c.d, c.task.Actions) {
			writes++
			a := c.task.Actions
			want := 0.0
			if j, ok := undoneWrites[c.name]; ok && j == i {
				want = 1
			}
			variants := map[string][]Action{
				"drop":      append(append([]Action{}, a[:i]...), a[i+1:]...),
				"wrong id":  replaced(a, i, wrongID(a[i])),
				"int float": replaced(a, i, floatNumbers(a[i])),
			}
			for how, acts := range variants {
				if acts == nil {
					continue
				}
				o := goldAgent(t, c.d, c.task, acts, c.task.Outputs)
				if r := Reward(o, c.gold, c.task.Outputs); r != want {
					t.Errorf("%s: %s action %d (%s): reward %v, want %v", c.name, how, i, a[i].Name, r, want)
				}
			}
		}
		if len(c.task.Outputs) > 0 {
			outputs++
			o := goldAgent(t, c.d, c.task, c.task.Actions, []string{"I have taken care of it."})
			if r := Reward(o, c.gold, c.task.Outputs); r != 0 {
				t.Errorf("%s: silent agent reward %v, want 0", c.name, r)
			}
		}
	}
	t.Logf("%d write actions broken three ways, %d tasks with outputs", writes, outputs)
	if writes == 0 || outputs != 41 {
		t.Errorf("%d write actions, %d tasks with outputs (want 41)", writes, outputs)
	}
}

func replaced(a []Action, i int, b *Action) []Action {
	if b == nil {
		return nil
	}
	out := append([]Action{}, a...)
	out[i] = *b
	return out
}

// wrongID changes the first argument of a write action (the record it
// acts on) to an id no record has.
func wrongID(a Action) *Action {
	b := pyvalCopy(a)
	k := b.Kwargs.Keys()[0]
	v, _ := b.Kwargs.Get(k)
	s, ok := v.(string)
	if !ok {
		return nil
	}
	b.Kwargs.Set(k, s+"_missing")
	return &b
}

// floatNumbers turns every int in the action's kwargs into a float, or
// returns nil when there is none.
func floatNumbers(a Action) *Action {
	b := pyvalCopy(a)
	changed := false
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case int64:
			changed = true
			return float64(x)
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case *pyval.Dict:
			for _, k := range x.Keys() {
				e, _ := x.Get(k)
				x.Set(k, walk(e))
			}
		}
		return v
	}
	walk(b.Kwargs)
	if !changed {
		return nil
	}
	return &b
}
