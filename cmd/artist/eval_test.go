package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/artist-rl/artist/evalbench"
)

var tinyCkpt struct {
	once sync.Once
	root string // the run folder, removed after the tests
	dir  string
	err  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tinyCkpt.root != "" {
		os.RemoveAll(tinyCkpt.root)
	}
	os.Exit(code)
}

// tinyCheckpoint trains a tiny run once (a warm start long enough for the
// model to write tags and some tool calls, no GRPO) and returns its
// checkpoint folder. TestMain removes the run folder.
func tinyCheckpoint(t *testing.T) string {
	t.Helper()
	tinyCkpt.once.Do(func() {
		dir, err := os.MkdirTemp("", "artist-eval-*")
		if err != nil {
			tinyCkpt.err = err.Error()
			return
		}
		tinyCkpt.root = dir
		code, _, stderr := runCLI("train", "-config", "testdata/tiny.yaml", "-set", "run_dir="+dir, "-set", "grpo.steps=0",
			"-set", "warmstart.steps=300", "-set", "warmstart.lr=0.02", "-set", "warmstart.demos=32", "-set", "warmstart.batch_size=8",
			"-set", "rollout.max_response_tokens=48")
		if code != 0 {
			tinyCkpt.err = stderr
			return
		}
		latest, err := os.ReadFile(filepath.Join(dir, "checkpoints", "latest"))
		if err != nil {
			tinyCkpt.err = err.Error()
			return
		}
		tinyCkpt.dir = filepath.Join(dir, "checkpoints", strings.TrimSpace(string(latest)))
	})
	if tinyCkpt.err != "" {
		t.Fatalf("tiny checkpoint: %s", tinyCkpt.err)
	}
	return tinyCkpt.dir
}

// outputs reads what artist eval wrote into dir.
func outputs(t *testing.T, dir string) (samples []evalbench.Sample, sums map[string]evalbench.Summary) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sums); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s evalbench.Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("samples.jsonl: %v", err)
		}
		samples = append(samples, s)
	}
	return samples, sums
}

// TestEvalBenchLocal evaluates the tiny checkpoint on the fixture
// benchmarks and checks the table, the records and the summary.
func TestEvalBenchLocal(t *testing.T) {
	ckpt := tinyCheckpoint(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("eval", "-checkpoint", ckpt, "-bench", "math500,amc23", "-data", "testdata/bench",
		"-n", "2", "-temperature", "1", "-out", out)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"pass@1", "maj@k", "math500", "amc23"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stderr, "\r") || strings.Contains(stderr, "3/3") {
		t.Errorf("a progress bar was drawn on a stderr that is not a terminal:\n%q", stderr)
	}
	if !strings.Contains(stderr, "eval: 2 samples per problem at temperature 1, seed 1") {
		t.Errorf("the settings are not printed:\n%s", stderr)
	}
	samples, sums := outputs(t, out)
	if len(samples) != 2*(3+2) || sums["math500"].Problems != 3 || sums["amc23"].K != 2 {
		t.Fatalf("%d samples, summary %+v", len(samples), sums)
	}
	correct := 0
	for _, s := range samples {
		if s.Gold == "" || s.Question == "" || s.Stop == "" || s.Tokens == 0 {
			t.Errorf("incomplete record %+v", s)
		}
		if s.Correct {
			correct++
		}
	}
	if got := sums["math500"].Pass1*6 + sums["amc23"].Pass1*4; int(got+0.5) != correct {
		t.Errorf("pass@1 counts %v right samples, records %d", got, correct)
	}
}

// syncBuffer is a writer that tests may read while a command writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveTiny starts artist serve on a free loopback port and returns its
// base URL; the server stops with the test.
func serveTiny(t *testing.T, ckpt string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-checkpoint", ckpt, "-addr", "127.0.0.1:0", "-model", "tiny"}, io.Discard, &errb)
	}()
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections() // dialed but unused ones would hold up the shutdown
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, errb.String())
		}
	})
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		s := errb.String()
		if i := strings.Index(s, "http://"); i >= 0 && strings.HasSuffix(s, "\n") {
			return strings.TrimSuffix(strings.Fields(s[i:])[0], "/v1/completions")
		}
	}
	t.Fatalf("serve did not report its address: %s", errb.String())
	return ""
}

// TestEvalLocalEqualsServe evaluates the tiny checkpoint greedily in
// process and through artist serve over HTTP: every record and score must
// agree.
func TestEvalLocalEqualsServe(t *testing.T) {
	ckpt := tinyCheckpoint(t)
	url := serveTiny(t, ckpt)
	local, remote := t.TempDir(), t.TempDir()
	args := []string{"eval", "-checkpoint", ckpt, "-bench", "math500,amc23", "-data", "testdata/bench", "-n", "2", "-temperature", "0"}
	if code, _, stderr := runCLI(append(args, "-out", local)...); code != 0 {
		t.Fatalf("local eval: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(append(args, "-out", remote, "-policy", url, "-model", "tiny")...); code != 0 {
		t.Fatalf("remote eval: exit %d: %s", code, stderr)
	}
	ls, lsum := outputs(t, local)
	rs, rsum := outputs(t, remote)
	if len(ls) != len(rs) || len(ls) != 10 {
		t.Fatalf("%d local and %d remote samples, want 10", len(ls), len(rs))
	}
	stops := map[string]int{}
	calls := 0
	for i := range ls {
		a, _ := json.Marshal(ls[i])
		b, _ := json.Marshal(rs[i])
		if string(a) != string(b) {
			t.Errorf("sample %d differs:\nlocal  %s\nremote %s", i, a, b)
		}
		calls += len(ls[i].Calls)
		stops[string(ls[i].Stop)]++
	}
	if calls == 0 || stops["answer"] == 0 {
		t.Errorf("the comparison covers %d tool calls and stops %v: want calls and answers", calls, stops)
	}
	for name, l := range lsum {
		r := rsum[name]
		l.Seconds, r.Seconds = 0, 0
		if !reflect.DeepEqual(l, r) {
			t.Errorf("%s: local %+v, remote %+v", name, l, r)
		}
	}
	t.Logf("%d samples, %d tool calls, stops %v", len(ls), calls, stops)
}

// scriptedAPI is an OpenAI-style completions server that writes one Go
// call printing 9*3 and then answers with the output it read. It names
// no stop string, so the client infers which tag stopped the text.
func scriptedAPI(t *testing.T) *httptest.Server {
	return codeAPI(t, "<think>multiply</think><code>fmt.Println(9 * 3)", func(model string, stop []string) bool {
		return model == "m" && slices.Contains(stop, "</code>")
	})
}

// codeAPI is a completions server that writes text (a thought and an
// opened code block) and, once the prompt holds the code's output,
// answers with that output. accept, when not nil, judges each request's
// model and stop strings; a request it refuses is answered 400.
func codeAPI(t *testing.T, text string, accept func(model string, stop []string) bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt string   `json:"prompt"`
			Stop   []string `json:"stop"`
			Model  string   `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || (accept != nil && !accept(req.Model, req.Stop)) {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		reply := text
		if i := strings.LastIndex(req.Prompt, "<output>"); i >= 0 {
			out := req.Prompt[i+len("<output>"):]
			reply = "<answer>" + strings.TrimSpace(out[:strings.Index(out, "</output>")])
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"text": reply, "finish_reason": "stop"}},
			"usage":   map[string]int{"completion_tokens": 5},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEvalPolicyWithoutCheckpoint evaluates a scripted remote policy with
// the default format, budgets and sandbox: the code really runs.
func TestEvalPolicyWithoutCheckpoint(t *testing.T) {
	srv := scriptedAPI(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("eval", "-bench", "amc23", "-data", "testdata/bench", "-policy", srv.URL, "-model", "m",
		"-temperature", "0", "-out", out)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	samples, sums := outputs(t, out)
	s := sums["amc23"]
	if s.Pass1 != 0.5 || s.ToolCalls != 1 || s.ToolFailFrac != 0 || s.ResponseLen != 10 || len(samples) != 2 {
		t.Fatalf("summary %+v (want pass@1 0.5: 9*3 answers the first problem only)\n%s", s, stdout)
	}
	want := "<think>multiply</think><code>fmt.Println(9 * 3)</code><output>27\n</output>\n<answer>27</answer>"
	if samples[0].Response != want || samples[0].Stop != "answer" || samples[0].Extracted != "27" {
		t.Errorf("sample %+v\nwant response %q", samples[0], want)
	}
}

func TestEvalBenchErrors(t *testing.T) {
	ckpt := tinyCheckpoint(t)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"prompt past the context", []string{"-checkpoint", ckpt, "-bench", "aime24", "-data", "testdata/bench", "-out", t.TempDir()}, 1, "over the model's context"},
		{"unknown benchmark", []string{"-checkpoint", ckpt, "-bench", "gsm8k"}, 1, "unknown benchmark"},
		{"missing file", []string{"-checkpoint", ckpt, "-bench", "aime25", "-data", "testdata/bench"}, 1, "aime25"},
		{"policy without bench", []string{"-checkpoint", ckpt, "-policy", "http://127.0.0.1:1"}, 2, "-policy needs -bench"},
		{"neither checkpoint nor policy", []string{"-bench", "amc23"}, 2, "-checkpoint DIR is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(append([]string{"eval"}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, c.code, c.want)
			}
		})
	}
}

// TestEvalKeepsFinishedBenchmarks: a benchmark that fails while it runs
// leaves the results of those before it on disk, and one that cannot run
// (its prompts overflow the model) is refused before any runs.
func TestEvalKeepsFinishedBenchmarks(t *testing.T) {
	ok := scriptedAPI(t)
	var mu sync.Mutex
	served := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served++
		n := served
		mu.Unlock()
		if n > 4 { // amc23's two problems take two requests each
			http.Error(w, "the server broke", http.StatusBadRequest)
			return
		}
		req, _ := http.NewRequest(r.Method, ok.URL+r.URL.Path, r.Body)
		req.Header = r.Header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	out := t.TempDir()
	code, stdout, stderr := runCLI("eval", "-bench", "amc23,math500", "-data", "testdata/bench", "-policy", srv.URL, "-model", "m",
		"-temperature", "0", "-out", out, "-parallel", "1", "-retries", "0")
	if code != 1 || !strings.Contains(stderr, "math500") || !strings.Contains(stderr, "the results of 1 finished benchmarks are in "+out) {
		t.Fatalf("exit %d, stderr %q; want a failure of math500 that names the kept results", code, stderr)
	}
	samples, sums := outputs(t, out)
	if s, ok := sums["amc23"]; !ok || s.Pass1 != 0.5 || len(samples) != 2 || len(sums) != 1 {
		t.Errorf("kept %d samples and summaries %+v; want amc23's two", len(samples), sums)
	}
	if !strings.Contains(stdout, "amc23") {
		t.Errorf("no table of the finished benchmark:\n%s", stdout)
	}

	ckpt := tinyCheckpoint(t)
	out = t.TempDir()
	code, _, stderr = runCLI("eval", "-checkpoint", ckpt, "-bench", "amc23,aime24", "-data", "testdata/bench", "-out", out)
	if code != 1 || !strings.Contains(stderr, "aime24") || !strings.Contains(stderr, "over the model's context") {
		t.Fatalf("exit %d, stderr %q; want aime24 refused for the context", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err == nil || strings.Contains(stderr, "samples per problem") {
		t.Errorf("amc23 ran before aime24 was checked (stderr %q)", stderr)
	}
}

// TestEvalCheckpointPaths: a folder that does not exist is named as such,
// and a run folder stands for its latest checkpoint; held-out evaluation
// uses the training evaluation's settings and says so.
func TestEvalCheckpointPaths(t *testing.T) {
	ckpt := tinyCheckpoint(t)
	runDir := filepath.Dir(filepath.Dir(ckpt))
	code, _, stderr := runCLI("eval", "-checkpoint", filepath.Join(t.TempDir(), "nope"))
	if code != 1 || !strings.Contains(stderr, "does not exist") || strings.Contains(stderr, "tokenizer") {
		t.Errorf("missing folder: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := runCLI("eval", "-checkpoint", runDir, "-limit", "2")
	if code != 0 {
		t.Fatalf("run folder: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"is a run folder: using its latest checkpoint, " + ckpt, "2 held-out tasks", "1 samples each at temperature 0 (the training evaluation's"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, `"accuracy"`) {
		t.Errorf("no result: %s", stdout)
	}
}
