package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/artist-rl/artist/internal/headless"
	"github.com/artist-rl/artist/internal/runlog"
)

// viewOutput is a buffer the server goroutine writes and the test reads.
type viewOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *viewOutput) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *viewOutput) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestViewErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	os.WriteFile(filepath.Join(run, "config.yaml"), []byte("seed: 1\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"view"}, 2, "give one or more run folders"},
		{[]string{"view", "-port", "1", run}, 2, "flag provided but not defined"},
		{[]string{"view", empty}, 1, "artist view: runview: " + empty + ": not a run folder: it holds neither config.yaml nor metrics.jsonl"},
		{[]string{"view", filepath.Join(run, "config.yaml")}, 1, "not a run folder: it is a file"},
		{[]string{"view", filepath.Join(dir, "missing")}, 1, "no such file or directory"},
		{[]string{"view", "-addr", "127.0.0.1:-1", run}, 1, "artist view: view: listen"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestViewCommand(t *testing.T) {
	cases := []struct{ dir, want string }{
		{"runs/tiny-tool-arith", "artist view runs/tiny-tool-arith"},
		{"runs/my run", "artist view 'runs/my run'"},
		{"it's", `artist view 'it'\''s'`},
	}
	for _, c := range cases {
		if got := viewCommand(c.dir); got != c.want {
			t.Errorf("viewCommand(%q) = %q, want %q", c.dir, got, c.want)
		}
	}
}

// startView runs artist view on dirs on a free loopback port until the
// test ends, and returns the page's URL.
func startView(t *testing.T, dirs ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb viewOutput
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"view", "-addr", "127.0.0.1:0"}, dirs...), &out, &errb) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("artist view exited %d: %s", code, errb.String())
		}
	})
	re := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if u := re.FindString(out.String()); u != "" {
			return u
		}
	}
	t.Fatalf("artist view printed no address: %q %q", out.String(), errb.String())
	return ""
}

// metricCounts reads metrics.jsonl: for each key, how many steps hold a
// number.
func metricCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		for k, v := range rec {
			if _, ok := v.(float64); ok && k != "step" {
				out[k]++
			}
		}
	}
	return out
}

// requireSampleRecords checks that training wrote samples/<eval>.jsonl for
// every evaluation it ran, each record with segments.
func requireSampleRecords(t *testing.T, dir string) {
	t.Helper()
	for _, tag := range []string{"warmstart", "step-000001", "final"} {
		f, err := os.Open(filepath.Join(dir, "samples", tag+".jsonl"))
		if err != nil {
			t.Fatalf("training wrote no rollout records: %v", err)
		}
		recs, err := runlog.ReadSamples(f)
		f.Close()
		if err != nil || len(recs) == 0 {
			t.Fatalf("samples/%s.jsonl: %d records, %v", tag, len(recs), err)
		}
		for _, rec := range recs {
			if rec.Eval != tag || len(rec.Segments) == 0 || rec.Family != "arith" {
				t.Fatalf("samples/%s.jsonl: record %+v: want eval %s, family arith and segments", tag, rec, tag)
			}
		}
	}
}

// TestViewTrainedRun trains a tiny run, serves its folder with artist
// view and checks the page in headless Chromium: a group for every metric
// prefix, every point of every metric drawn, and a rollout whose tool
// result is marked masked.
func TestViewTrainedRun(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI("train", "-config", "testdata/tiny.yaml", "-set", "run_dir="+dir, "-set", "grpo.steps=3", "-set", "eval.every=1",
		"-set", "warmstart.steps=300", "-set", "warmstart.lr=0.02", "-set", "warmstart.demos=32", "-set", "warmstart.batch_size=8",
		"-set", "rollout.max_response_tokens=48")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	requireSampleRecords(t, dir)
	counts := metricCounts(t, filepath.Join(dir, "metrics.jsonl"))
	url := startView(t, dir)

	resp, err := http.Get(url + "api/metrics?run=0")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Steps  []float64             `json:"steps"`
		Series map[string][]*float64 `json:"series"`
	}
	err = json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if err != nil || len(m.Steps) != 4 || len(m.Series) != len(counts) {
		t.Fatalf("api/metrics: %d steps, %d series (%v); want 4 steps (0-3) and %d series", len(m.Steps), len(m.Series), err, len(counts))
	}

	bin, err := headless.Find()
	if err != nil && headless.Required() {
		t.Fatal(err)
	}
	if err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bctx, stop := headless.Start(ctx, bin, t.TempDir(), 1400, 1000)
	defer stop()
	if err := chromedp.Do(bctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatal(err)
	}
	type page struct {
		Groups []string          `json:"groups"`
		Points map[string]string `json:"points"`
	}
	p, err := chromedp.Run(bctx, chromedp.Evaluate[page](`({
	  groups: [...document.querySelectorAll('#groups .group')].map(g => g.dataset.group),
	  points: Object.fromEntries([...document.querySelectorAll('#groups .chart')].map(c => [c.dataset.metric, c.dataset.points || ''])),
	})`))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for k, n := range counts {
		g, _, ok := strings.Cut(k, "/")
		if !ok {
			g = "other"
		}
		if !slices.Contains(want, g) {
			want = append(want, g)
		}
		if got := p.Points[k]; got != strconv.Itoa(n) {
			t.Errorf("chart %s shows %q points; metrics.jsonl has %d", k, got, n)
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(p.Groups))
	if !slices.Equal(got, want) {
		t.Errorf("metric groups %v, want %v", got, want)
	}
	for _, g := range []string{"reward", "eval", "rollout", "loss", "clip", "grad", "timing", "throughput"} {
		if !slices.Contains(p.Groups, g) {
			t.Errorf("no %s group on the page (groups %v)", g, p.Groups)
		}
	}

	type seg struct{ Label, Text, Tokens string }
	if err := chromedp.Do(bctx, chromedp.Click(chromedp.CSS(`#tabs button[data-tab="rollouts"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#rollouts .rollout`))); err != nil {
		t.Fatal(err)
	}
	s, err := chromedp.Run(bctx, chromedp.Evaluate[*seg](`(() => {
	  const s = document.querySelector('#rollouts .seg[data-kind="tool_result"][data-masked="true"]');
	  return s && {label: s.querySelector('.seg-label').textContent, text: s.querySelector('pre').textContent, tokens: s.dataset.tokens};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if s == nil || !strings.Contains(s.Label, "masked") || !strings.HasPrefix(s.Text, "<output>") || !strings.Contains(s.Label, s.Tokens+" tok") {
		t.Fatalf("no rollout shows a tool result marked masked with its token count: %+v", s)
	}
}
