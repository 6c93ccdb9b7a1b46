package taubench

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the fixture's derived files (tasks, rules, conformance records) under testdata/tau_bench")

// fixture is the hand-made data set that keeps the code paths covered
// without the benchmark files.
const fixture = "../../testdata/tau_bench"

// golden compares got with the file, or rewrites the file under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from what the code gives now:\n got %s\nwant %s", path, got, want)
	}
}

func TestFixtureConvert(t *testing.T) {
	for _, c := range []struct{ py, out string }{
		{"source/airline/tasks_test.py", "airline/tasks_test.json"},
		{"source/retail/tasks_test.py", "retail/tasks_test.json"},
		{"source/airline/rules.py", "airline/rules.json"},
		{"source/retail/rules.py", "retail/rules.json"},
	} {
		t.Run(c.py, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(fixture, c.py))
			if err != nil {
				t.Fatal(err)
			}
			convert := ConvertTasks
			if strings.HasSuffix(c.py, "rules.py") {
				convert = ConvertRules
			}
			v, err := convert(string(src))
			if err != nil {
				t.Fatal(err)
			}
			text, err := ConvertJSON(v)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(fixture, c.out), text)
		})
	}
}

func TestFixtureReplay(t *testing.T) {
	for _, domain := range []string{Airline, Retail} {
		t.Run(domain, func(t *testing.T) {
			d := loadDomain(t, filepath.Join(fixture, domain), domain)
			tasks, err := LoadTasks(filepath.Join(fixture, domain, "tasks_test.json"))
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := WriteRecords(&b, d, "test", tasks, nil); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(fixture, "conformance", domain+"_test.jsonl"), b.String())
		})
	}
}

func TestFixtureReward(t *testing.T) {
	for _, domain := range []string{Airline, Retail} {
		d := loadDomain(t, filepath.Join(fixture, domain), domain)
		tasks, err := LoadTasks(filepath.Join(fixture, domain, "tasks_test.json"))
		if err != nil {
			t.Fatal(err)
		}
		for i, task := range tasks {
			gold, err := GoldHash(d, task)
			if err != nil {
				t.Fatal(err)
			}
			if r := Reward(goldAgent(t, d, task, task.Actions, task.Outputs), gold, task.Outputs); r != 1 {
				t.Errorf("%s task %d: gold agent reward %v, want 1", domain, i, r)
			}
			if len(task.Outputs) > 0 {
				if r := Reward(goldAgent(t, d, task, task.Actions, nil), gold, task.Outputs); r != 0 {
					t.Errorf("%s task %d: silent agent reward %v, want 0", domain, i, r)
				}
			}
			if len(writeActions(d, task.Actions)) > 0 && gold == d.NewEnv().Hash() {
				t.Errorf("%s task %d: writes leave the hash unchanged", domain, i)
			}
		}
	}
}
