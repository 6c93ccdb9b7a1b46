package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/library"
	"github.com/artist-rl/artist/internal/runlog"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// libFixture is the hand-checked library of the library package's tests.
const libFixture = "../../envs/library/testdata/demos.jsonl"

// TestShippedLibrariesValidate re-runs every recorded call of the
// libraries in configs/library, so a change to a tool or a library that
// breaks one fails here.
func TestShippedLibrariesValidate(t *testing.T) {
	files, _ := filepath.Glob("../../configs/library/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no library in configs/library")
	}
	for _, f := range append(files, libFixture) {
		code, stdout, stderr := runCLI("library", "validate", f)
		if code != 0 || !strings.Contains(stdout, "all results match") {
			t.Errorf("%s: exit %d\n%s%s", f, code, stdout, stderr)
		}
	}
}

func TestLibraryValidateNamesRecords(t *testing.T) {
	lib, err := library.Load(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	lib.Demos[1].Steps = append(lib.Demos[1].Steps, library.Step{Tool: "abacus", Call: "12 + 30", Result: "42"})
	lib.Demos[2].Steps[0].Result = "588\n"
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := library.Write(path, lib.Demos); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("library", "validate", path)
	for _, want := range []string{
		path + `:2: add-apples step 2: tool "abacus" is not in the registry (have: sandbox)`,
		path + `:3: sub-coins step 1: recorded result differs from what sandbox returns now`,
		`want "588\n"`, `got  "587\n"`,
	} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
}

func TestLibrarySelect(t *testing.T) {
	code, stdout, stderr := runCLI("library", "select", "-library", libFixture, "-k", "2", "-show", "-syntax", "art",
		"A", "jar", "holds", "40", "coins.", "12", "are", "taken", "out.", "How", "many", "coins", "are", "left?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if !strings.HasPrefix(lines[0], "sub-coins ") || !strings.HasPrefix(lines[1], "add-apples ") || !strings.HasSuffix(lines[0], " arith") {
		t.Errorf("selection:\n%s", stdout)
	}
	if !strings.Contains(stdout, "[sandbox] package main") || !strings.Contains(stdout, "#1: 587\nAns: 587") {
		t.Errorf("no ART rendering of sub-coins:\n%s", stdout)
	}
	if code, _, stderr := runCLI("library", "select", "-library", libFixture, "-syntax", "lisp", "x"); code != 1 || !strings.Contains(stderr, "use tags or art") {
		t.Errorf("bad syntax: exit %d %s", code, stderr)
	}
}

// TestLibraryExportValidates exports a config's warm-start library and
// validates it: every result the export wrote is the tool's.
func TestLibraryExportValidates(t *testing.T) {
	out := filepath.Join(t.TempDir(), "arith.jsonl")
	code, stdout, stderr := runCLI("library", "export", "-config", "testdata/tiny.yaml", "-uses-tool", "-n", "3", "-out", out)
	if code != 0 || !strings.Contains(stdout, "3 demonstrations of arith") {
		t.Fatalf("export: exit %d: %s%s", code, stdout, stderr)
	}
	lib, err := library.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range lib.Demos {
		if len(d.Steps) != 1 || d.Steps[0].Tool != "sandbox" || d.Steps[0].Result == "" || d.Family != "arith" {
			t.Errorf("case %d: %+v", i, d)
		}
	}
	if code, stdout, stderr := runCLI("library", "validate", out); code != 0 {
		t.Errorf("validate: exit %d: %s%s", code, stdout, stderr)
	}
}

// TestLibraryAddFromRun appends the correct rollouts of a run folder's
// samples and skips the rest.
func TestLibraryAddFromRun(t *testing.T) {
	run := t.TempDir()
	seg := func(k runlog.Kind, text string) runlog.Segment { return runlog.Segment{Kind: k, Text: text} }
	good := runlog.Sample{Task: "t1", Family: "arith", Correct: true, Segments: []runlog.Segment{
		seg(runlog.Prompt, "Add 1 and 1.\n<think>1 + 1</think><answer>2</answer>\n\nAdd 2 and 3.\n"), // ART-prompted
		seg(runlog.Model, "<think>2 + 3</think>"),
		seg(runlog.ToolCall, "<code>package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(2 + 3) }\n</code>"),
		seg(runlog.ToolResult, "<output>5\n</output>\n"),
		seg(runlog.Model, "<answer>5</answer>"),
	}}
	wrong := good
	wrong.Task, wrong.Correct = "t2", false
	cut := good
	cut.Task = "t3"
	cut.Segments = append([]runlog.Segment(nil), good.Segments...)
	cut.Segments[3].Truncated = true
	if err := runlog.WriteSamples(filepath.Join(run, "samples", "final.jsonl"), []runlog.Sample{good, wrong, cut}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "lib.jsonl")
	code, stdout, stderr := runCLI("library", "add", "-from", run, "-out", out)
	if code != 0 || !strings.Contains(stdout, "added 1 demonstrations\nt1\n") || !strings.Contains(stderr, "cut to the result budget") {
		t.Fatalf("add: exit %d\n%s%s", code, stdout, stderr)
	}
	lib, err := library.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	d := lib.Demos[0]
	if d.Input != "Add 2 and 3." || d.Answer != "5" || d.Steps[0].Thought != "2 + 3" || d.Steps[0].Result != "5\n" {
		t.Errorf("demonstration %+v", d)
	}
	if code, stdout, stderr := runCLI("library", "validate", out); code != 0 {
		t.Errorf("validate: exit %d: %s%s", code, stdout, stderr)
	}
}

// demoAPI is a completions server that records each prompt; it calls
// the tool once (printing 9*3) and then answers with what it read.
type demoAPI struct {
	mu      sync.Mutex
	prompts []string
}

func (a *demoAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Prompt string `json:"prompt"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.prompts = append(a.prompts, req.Prompt)
	a.mu.Unlock()
	text := "<think>multiply</think><code>fmt.Println(9 * 3)"
	if strings.HasSuffix(req.Prompt, "</output>\n") {
		out := req.Prompt[strings.LastIndex(req.Prompt, "<output>")+len("<output>"):]
		text = "<answer>" + strings.TrimSpace(strings.TrimSuffix(out, "</output>\n"))
	}
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"text": text, "finish_reason": "stop"}},
		"usage":   map[string]int{"completion_tokens": 5},
	})
}

// TestEvalPromptingART evaluates a scripted server with ART prompting:
// each prompt is the selected demonstrations, then the task; the
// rollouts it wrote can be added back to the library, and validate.
func TestEvalPromptingART(t *testing.T) {
	api := &demoAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	out := t.TempDir()
	code, _, stderr := runCLI("eval", "-bench", "amc23", "-data", "testdata/bench", "-policy", srv.URL, "-model", "m",
		"-temperature", "0", "-prompting", "art", "-library", libFixture, "-k", "2", "-out", out, "-parallel", "1")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	lib, err := library.Load(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	ix := library.NewIndex(lib)
	samples, sums := outputs(t, out)
	if sums["amc23"].Pass1 != 0.5 || len(samples) != 2 {
		t.Fatalf("summary %+v", sums["amc23"])
	}
	firsts := 0
	for _, s := range samples {
		ms, err := ix.Select(context.Background(), "math", s.Question, 2)
		if err != nil {
			t.Fatal(err)
		}
		want := library.Prefix(ms, format.DefaultFormat(), library.SyntaxTags) + rollout.PromptText(envs.Task{Prompt: s.Question})
		for _, p := range api.prompts {
			if p == want {
				firsts++
			}
		}
	}
	if firsts != 2 {
		t.Errorf("%d first prompts hold the selected demonstrations, want 2; prompts:\n%s", firsts, strings.Join(api.prompts, "\n-----\n"))
	}
	lib2 := filepath.Join(t.TempDir(), "grown.jsonl")
	if code, stdout, stderr := runCLI("library", "add", "-from", out, "-out", lib2); code != 0 || !strings.Contains(stdout, "added 1 demonstrations") {
		t.Fatalf("add: exit %d %s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCLI("library", "validate", lib2); code != 0 {
		t.Errorf("validate: exit %d: %s%s", code, stdout, stderr)
	}
}

// TestEvalPromptingARTCheckpoint runs -prompting art on the tiny
// checkpoint's held-out split; a library too long for its context is
// refused, which shows the demonstrations reach the prompt.
func TestEvalPromptingARTCheckpoint(t *testing.T) {
	ckpt := tinyCheckpoint(t)
	short := filepath.Join(t.TempDir(), "short.jsonl")
	if err := os.WriteFile(short, []byte(`{"id":"s","family":"arith","description":"add","input":"Add 2 and 3.","steps":[{"thought":"2 + 3"}],"answer":"5"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("eval", "-checkpoint", ckpt, "-prompting", "art", "-library", short, "-k", "1", "-limit", "2", "-temperature", "0")
	var res struct{ N int }
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.N != 2 {
		t.Fatalf("eval: exit %d: %s%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI("eval", "-checkpoint", ckpt, "-prompting", "art", "-library", libFixture, "-k", "4", "-limit", "2")
	if code != 1 || !strings.Contains(stderr, "over model.max_position_embeddings") {
		t.Errorf("four demonstrations: exit %d: %s", code, stderr)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-prompting", "art"}, "-prompting art needs -library FILE"},
		{[]string{"-library", libFixture}, "-library needs -prompting art"},
		{[]string{"-prompting", "cot"}, `-prompting "cot": want art or plain`},
	}
	for i, c := range cases {
		code, _, stderr := runCLI(append([]string{"eval", "-checkpoint", ckpt}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("case %d: exit %d %q, want %q", i, code, stderr, c.want)
		}
	}
	code, _, stderr = runCLI("eval", "-checkpoint", ckpt, "-prompting", "art", "-library", "missing.jsonl")
	if code != 1 || !strings.Contains(stderr, "prompt.demos.library") {
		t.Errorf("missing library: exit %d %s", code, stderr)
	}
}

// TestEvalPromptingARTChat sends ART prompting through -api chat: the
// first user message of each task is the selected demonstrations, then
// the task.
func TestEvalPromptingARTChat(t *testing.T) {
	var mu sync.Mutex
	var firsts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatRequest
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		text, _ := openai.MessageText(req.Messages[len(req.Messages)-1].Content)
		mu.Lock()
		firsts = append(firsts, text)
		mu.Unlock()
		msg := openai.AnswerMessage{Role: "assistant", Content: openai.Ptr("<answer>27</answer>")}
		json.NewEncoder(w).Encode(openai.ChatCompletion{Choices: []openai.ChatChoice{{Message: msg, FinishReason: "stop"}}, Usage: openai.Usage{CompletionTokens: 5}})
	}))
	defer srv.Close()
	code, _, stderr := runCLI("eval", "-bench", "amc23", "-data", "testdata/bench", "-policy", srv.URL, "-api", "chat", "-model", "m",
		"-temperature", "0", "-out", t.TempDir(), "-prompting", "art", "-library", libFixture, "-k", "1")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	lib, err := library.Load(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	ix := library.NewIndex(lib)
	q := "A crate holds 9 cards. How many in 3 crates?"
	ms, err := ix.Select(context.Background(), "math", q, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := library.Prefix(ms, format.DefaultFormat(), library.SyntaxTags) + q
	if !slices.Contains(firsts, want) {
		t.Errorf("no first user message is %q; got %q", want, firsts)
	}
}

func TestPromptInput(t *testing.T) {
	f := format.DefaultFormat()
	cases := []struct{ prompt, want string }{
		{"Add 2 and 3.\n", "Add 2 and 3."},
		{"Q1\n<answer>1</answer>\n\nAdd 2 and 3.\n", "Add 2 and 3."},
		{"<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ1\n<answer>1</answer>\n\nAdd 2 and 3.<|im_end|>\n<|im_start|>assistant\n", "Add 2 and 3."},
	}
	for i, c := range cases {
		if got := promptInput(c.prompt, f); got != c.want {
			t.Errorf("case %d: %q, want %q", i, got, c.want)
		}
	}
}

// TestLibraryAddARTStyle reads an eval's samples written in ART's program
// syntax (-style art): the "#n: " lines are the results, not the policy's.
func TestLibraryAddARTStyle(t *testing.T) {
	dir := t.TempDir()
	sample := map[string]any{
		"id": "q1", "bench": "arith", "question": "60 boxes hold 286 apples each. How many apples?", "correct": true,
		"response": "286 * 60\n[code] fmt.Println(286 * 60)\n#1: 17160\nAns: 17160\n",
		"calls":    []map[string]any{{"input": "fmt.Println(286 * 60)", "result": map[string]any{"status": "ok", "output": "17160\n"}}},
	}
	line, err := json.Marshal(sample)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "samples.jsonl")
	if err := os.WriteFile(file, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "lib.jsonl")
	if code, stdout, stderr := runCLI("library", "add", "-from", file, "-out", out); code != 0 || !strings.Contains(stdout, "added 0 demonstrations") {
		t.Errorf("tags reading of an art response: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCLI("library", "add", "-from", file, "-out", out, "-style", "art"); code != 0 || !strings.Contains(stdout, "added 1 demonstrations") {
		t.Fatalf("add: exit %d\n%s%s", code, stdout, stderr)
	}
	lib, err := library.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	d := lib.Demos[0]
	if d.Answer != "17160" || len(d.Steps) != 1 || d.Steps[0].Call != "fmt.Println(286 * 60)" || d.Steps[0].Result != "17160\n" || d.Steps[0].Thought != "286 * 60" {
		t.Errorf("demonstration %+v", d)
	}
	if code, _, stderr := runCLI("library", "add", "-from", file, "-out", out, "-style", "lines"); code != 2 || !strings.Contains(stderr, "format.style") {
		t.Errorf("bad style: exit %d %s", code, stderr)
	}
}
