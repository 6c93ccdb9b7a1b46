package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/atlass"
	"github.com/artist-rl/artist/atlass/atlasstest"
	"github.com/artist-rl/artist/envs/toollib"
)

// atlassServer plays the scripts of atlass/testdata in order.
func atlassServer(t *testing.T, scripts ...string) *atlasstest.Server {
	t.Helper()
	var steps []atlasstest.Step
	for _, name := range scripts {
		s, err := atlasstest.ReadScript(filepath.Join("..", "..", "atlass", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, s...)
	}
	srv := atlasstest.NewServer(atlass.PhaseOf, steps...)
	t.Cleanup(srv.Close)
	return srv
}

// atlassLines decodes the JSON lines artist atlass prints.
func atlassLines(t *testing.T, stdout string) []map[string]string {
	t.Helper()
	var out []map[string]string
	for line := range strings.Lines(stdout) {
		var m map[string]string
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestAtlassCommand(t *testing.T) {
	dir := t.TempDir()
	db, out := filepath.Join(dir, "tools.db"), filepath.Join(dir, "out")
	tasks := filepath.Join(dir, "tasks.jsonl")
	jsonl := `{"id": "mul", "task": "What is 17 times 23?"}` + "\n\n" + `{"id": "digits", "task": "What is the sum of the digits of 98765?"}` + "\n"
	if err := os.WriteFile(tasks, []byte(jsonl), 0o644); err != nil {
		t.Fatal(err)
	}

	srv := atlassServer(t, "no_tool.txt", "generate_fix.txt")
	code, stdout, stderr := runCLI("atlass", "-policy", srv.URL, "-model", "scripted", "-db", db, "-out", out, "-tasks", tasks)
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	lines := atlassLines(t, stdout)
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and two lines", code, stdout, stderr)
	}
	if l := lines[0]; l["id"] != "mul" || l["status"] != "solved" || l["answer"] != "391" || l["transcript"] != filepath.Join(out, "mul.json") {
		t.Errorf("first task: %v", l)
	}
	if l := lines[1]; l["status"] != "awaiting_approval" || l["message"] != "awaiting approval: artist tools approve 1" {
		t.Errorf("second task: %v", l)
	}
	if !strings.Contains(stderr, "artist tools approve -db "+db+" ID") {
		t.Errorf("stderr does not say how to approve: %q", stderr)
	}
	var tr atlass.Transcript
	data, err := os.ReadFile(filepath.Join(out, "digits.json"))
	if err != nil || json.Unmarshal(data, &tr) != nil || len(tr.Phases) != 4 || tr.Phases[3].Phase != "generate" || len(tr.Phases[3].Attempts) != 2 {
		t.Errorf("digits transcript (%v): %.300s", err, data)
	}

	// The pending tool is stored with its provenance; a second run
	// with -auto-approve finds no stored tool that computes a factorial,
	// generates one, approves it and uses it.
	srv = atlassServer(t, "select_none_auto_approve.txt")
	code, stdout, stderr = runCLI("atlass", "-policy", srv.URL, "-model", "scripted", "-db", db, "-out", out, "-auto-approve", "-id", "fact10", "What", "is", "10", "factorial?")
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	if lines := atlassLines(t, stdout); code != 0 || len(lines) != 1 || lines[0]["status"] != "solved" || lines[0]["answer"] != "3628800" || lines[0]["transcript"] != filepath.Join(out, "fact10.json") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 3628800 solved", code, stdout, stderr)
	}
	if sel := srv.Asked("select"); len(sel) != 1 || !strings.Contains(atlasstest.LastUser(sel[0]), "candidate id 1 (pending): func digitSum(n int) int") {
		t.Errorf("the selector was not shown the pending digitSum: %v", sel)
	}
	if !strings.Contains(stderr, "auto-approving generated tools") {
		t.Errorf("stderr does not say it auto-approves: %q", stderr)
	}
	d, err := toollib.OpenDB(db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	pending, err := d.Get(context.Background(), 1)
	if err != nil || pending.Tool.Name != "digitSum" || pending.State != toollib.Pending || pending.Provenance != (toollib.Provenance{Task: "digits", Run: out, Source: "atlass"}) {
		t.Errorf("tool 1 = %+v (%v), want digitSum pending from task digits", pending, err)
	}
	auto, err := d.Get(context.Background(), 2)
	if err != nil || auto.Tool.Name != "factorial" || auto.Provenance.Task != "fact10" || auto.State != toollib.Approved || auto.Decider != "artist atlass -auto-approve" || auto.Uses != 1 {
		t.Errorf("tool 2 = %+v (%v), want factorial auto-approved and used once", auto, err)
	}
}

func TestAtlassUsage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := []string{"atlass", "-policy", "http://127.0.0.1:1", "-model", "m", "-db", filepath.Join(dir, "tools.db"), "-out", filepath.Join(dir, "out")}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no policy", []string{"atlass", "add 2 and 3"}, 2, "-policy URL and -model NAME are required"},
		{"no task", base, 2, "give either the task text or -tasks FILE.jsonl"},
		{"text and tasks", append(base[:len(base):len(base)], "-tasks", "x.jsonl", "add"), 2, "give either"},
		{"bad attempts", append(base[:len(base):len(base)], "-max-attempts", "0", "add"), 2, "-max-attempts"},
		{"missing tasks file", append(base[:len(base):len(base)], "-tasks", filepath.Join(dir, "none.jsonl")), 1, "none.jsonl"},
		{"bad line", append(base[:len(base):len(base)], "-tasks", write("bad.jsonl", `{"id": "a", "task": "x"}`+"\n"+`{"id": "b", "prompt": "y"}`)), 1,
			`bad.jsonl:2: json: unknown field "prompt"`},
		{"empty task", append(base[:len(base):len(base)], "-tasks", write("empty.jsonl", `{"id": "a", "task": " "}`)), 1, `empty.jsonl:1: "id" and "task" must both be non-empty`},
		{"same transcript", append(base[:len(base):len(base)], "-tasks", write("dup.jsonl", `{"id": "a/1", "task": "x"}`+"\n"+`{"id": "a_1", "task": "y"}`)), 1,
			`dup.jsonl:2: id "a_1" names the same transcript (a_1.json) as line 1`},
		{"json library", append(base[:len(base):len(base)], "-db", write("tools.json", `{"tools": []}`), "add"), 1, "artist tools import"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want %d with %q", code, stderr, c.code, c.want)
			}
		})
	}
}
