package runview

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/runlog"
)

func get(t *testing.T, h http.Handler, target string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest("GET", "http://127.0.0.1"+target, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, b
}

func TestNewRejects(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "metrics.jsonl")
	write(t, file, "")
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	cases := []struct {
		name string
		dirs []string
		want string
		not  bool // wraps ErrNotRunFolder
	}{
		{"none", nil, "no run folder given", false},
		{"missing", []string{filepath.Join(dir, "nope")}, "no such file", false},
		{"a file", []string{file}, "it is a file", true},
		{"empty folder", []string{empty}, "neither config.yaml nor metrics.jsonl", true},
		{"one good one bad", []string{dir, empty}, "neither config.yaml", true},
	}
	for _, c := range cases {
		_, err := New(c.dirs...)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "runview: ") || errors.Is(err, ErrNotRunFolder) != c.not {
			t.Errorf("%s: New error %v, want %q (ErrNotRunFolder %v)", c.name, err, c.want, c.not)
		}
	}
	if _, err := New(dir); err != nil {
		t.Errorf("a folder with metrics.jsonl only (a run that just started): %v", err)
	}
}

func TestEndpoints(t *testing.T) {
	root := t.TempDir()
	a := writeRun(t, filepath.Join(root, "a"), fixture{steps: 30, evalEvery: 10, lr: 1e-5, seed: 1, summary: true})
	b := writeRun(t, filepath.Join(root, "b"), fixture{steps: 20, evalEvery: 10, lr: 3e-5, seed: 1})
	s, err := New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		target string
		code   int
		want   []string // substrings of the body
	}{
		{"/", 200, []string{"<title>artist view</title>", "static/app.js"}},
		{"/static/app.js", 200, []string{"api/metrics?run="}},
		{"/static/plot.js", 200, []string{"function ema"}},
		{"/static/style.css", 200, []string{".seg.masked"}},
		{"/api/runs", 200, []string{`{"id":0,"name":"a"}`, `{"id":1,"name":"b"}`}},
		{"/api/summary?run=0", 200, []string{`"backend": "go"`, `"wall_s": 411.2`}},
		{"/api/summary?run=1", 404, []string{"no summary.json yet"}},
		{"/api/summary?run=2", 400, []string{"run must be an index from 0 to 1"}},
		{"/api/summary?run=-1", 400, []string{"run must be"}},
		{"/api/evals?run=0", 200, []string{`[{"name":"warmstart","samples":4},{"name":"final","samples":4}]`}},
		{"/api/samples?run=0&eval=final", 200, []string{`"kind":"tool_result"`, `"masked":true`, `"family":"bfcl"`}},
		{"/api/samples?run=0&eval=nope", 404, []string{`no eval \"nope\"`}},
		{"/api/metrics?run=0&offset=abc", 400, []string{"not a byte offset"}},
		{"/api/config", 200, []string{`"diff":[{`, `"key":"grpo.lr","values":["1e-05","3e-05"]`, `"key":"grpo.steps","values":["30","20"]`}},
		{"/api/nothing", 404, nil},
	}
	for _, c := range cases {
		code, body := get(t, s, c.target)
		if code != c.code {
			t.Errorf("GET %s: status %d, want %d: %s", c.target, code, c.code, body)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("GET %s: body lacks %q:\n%.600s", c.target, w, body)
			}
		}
	}
	_, body := get(t, s, "/api/config")
	if strings.Contains(string(body), `"key":"seed"`) || strings.Contains(string(body), `"key":"task.name"`) {
		t.Errorf("config diff lists keys that are equal: %s", body)
	}
}

// TestNoTraversal: only the run folders' own files are served; names
// from the request never reach the file system as paths.
func TestNoTraversal(t *testing.T) {
	root := t.TempDir()
	run := writeRun(t, filepath.Join(root, "run"), fixture{steps: 5, evalEvery: 5, lr: 1e-5, seed: 1})
	write(t, filepath.Join(root, "secret.jsonl"), `{"eval":"SECRET"}`+"\n")
	write(t, filepath.Join(root, "secret.txt"), "SECRET\n")
	if err := os.Symlink(filepath.Join(root, "secret.jsonl"), filepath.Join(run, "samples", "leak.jsonl")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(root, "other"), 0o755)
	if err := os.Symlink("../secret.txt", filepath.Join(run, "summary.json")); err != nil {
		t.Fatal(err)
	}
	s, err := New(run)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{
		"/api/samples?run=0&eval=../../secret",
		"/api/samples?run=0&eval=" + url.QueryEscape("../secret"),
		"/api/samples?run=0&eval=" + url.QueryEscape(filepath.Join(root, "secret")),
		"/api/samples?run=0&eval=leak",
		"/api/samples?run=0&eval=final.jsonl/../../../secret",
		"/api/summary?run=0",
		"/api/summary?run=../secret",
		"/static/../../secret.txt",
		"/static/%2e%2e/%2e%2e/secret.txt",
		"/static/..%2f..%2fsecret.txt",
		"/../secret.txt",
	} {
		code, body := get(t, s, target)
		if strings.Contains(string(body), "SECRET") || code == 200 {
			t.Errorf("GET %s: status %d body %.200q: served a file outside the run folder", target, code, body)
		}
	}
	_, body := get(t, s, "/api/evals?run=0")
	if strings.Contains(string(body), "leak") {
		t.Errorf("evals list a symbolic link out of the folder: %s", body)
	}
}

func decodeMetrics(t *testing.T, b []byte) Metrics {
	t.Helper()
	var m struct {
		Offset int64                 `json:"offset"`
		Check  string                `json:"check"`
		Reset  bool                  `json:"reset"`
		Steps  []float64             `json:"steps"`
		Series map[string][]*float64 `json:"series"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("metrics answer %.300s: %v", b, err)
	}
	out := Metrics{Offset: m.Offset, Check: m.Check, Reset: m.Reset, Steps: m.Steps, Series: map[string][]float64{}}
	for k, col := range m.Series {
		if len(col) != len(m.Steps) {
			t.Fatalf("series %s has %d values for %d steps", k, len(col), len(m.Steps))
		}
		for _, v := range col {
			x := -999.0 // null
			if v != nil {
				x = *v
			}
			out.Series[k] = append(out.Series[k], x)
		}
	}
	return out
}

// TestMetricsIncremental follows a growing metrics.jsonl the way the page
// does, through a torn line, a rewrite (resume) and a shrink.
func TestMetricsIncremental(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "metrics.jsonl")
	f := fixture{steps: 10, evalEvery: 5, lr: 1e-5, seed: 3}
	all := metricsLines(f, 0, 10)
	lines := strings.SplitAfter(all, "\n")
	write(t, path, strings.Join(lines[:4], "")+lines[4][:10]) // steps 0-3 and a torn line
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	var off int64
	var check string
	fetch := func() Metrics {
		_, b := get(t, s, "/api/metrics?run=0&offset="+itoa(off)+"&check="+url.QueryEscape(check))
		m := decodeMetrics(t, b)
		off, check = m.Offset, m.Check
		return m
	}
	steps := []struct {
		name      string
		content   string // file content before the call ("" keeps it)
		wantSteps []float64
		reset     bool
	}{
		{"first read stops at the torn line", "", []float64{0, 1, 2, 3}, false},
		{"nothing new", "", nil, false},
		{"the torn line completes", strings.Join(lines[:7], ""), []float64{4, 5, 6}, false},
		{"appended", strings.Join(lines[:9], ""), []float64{7, 8}, false},
		{"a resume rewrites the file shorter then longer", strings.Join(lines[:5], "") + strings.Replace(strings.Join(lines[5:10], ""), `"step":`, `"x":1,"step":`, -1), []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, true},
		{"shrunk", strings.Join(lines[:2], ""), []float64{0, 1}, true},
	}
	for _, c := range steps {
		if c.content != "" {
			os.Remove(path)
			write(t, path, c.content)
		}
		m := fetch()
		if len(m.Steps) != len(c.wantSteps) || m.Reset != c.reset {
			t.Fatalf("%s: steps %v reset %v, want %v reset %v", c.name, m.Steps, m.Reset, c.wantSteps, c.reset)
		}
		for i := range m.Steps {
			if m.Steps[i] != c.wantSteps[i] {
				t.Fatalf("%s: steps %v, want %v", c.name, m.Steps, c.wantSteps)
			}
		}
		if c.name == "first read stops at the torn line" {
			if got := m.Series["reward/mean"]; len(got) != 4 || got[0] != -999 || got[1] == -999 {
				t.Errorf("reward/mean %v: want null at step 0 (eval only) and values after", got)
			}
			if got := m.Series["grad/norm"]; got[3] != -999 {
				t.Errorf("grad/norm %v: the null at step 3 must stay null", got)
			}
			if got := m.Series["eval/arith/pass@1"]; got[0] == -999 || got[1] != -999 {
				t.Errorf("eval/arith/pass@1 %v: want a value at step 0 only", got)
			}
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestReadSamplesThroughServer(t *testing.T) {
	dir := writeRun(t, t.TempDir(), fixture{steps: 2, evalEvery: 1, lr: 1e-5, seed: 1})
	s, _ := New(dir)
	_, body := get(t, s, "/api/samples?run=0&eval=warmstart")
	var got []runlog.Sample
	if err := json.Unmarshal(body, &got); err != nil || len(got) != 4 {
		t.Fatalf("samples %s: %v", body, err)
	}
	var kinds []string
	for _, g := range got[2].Segments {
		kinds = append(kinds, string(g.Kind))
	}
	want := "prompt model tool_call tool_result model user_turn tool_call tool_result model"
	if strings.Join(kinds, " ") != want {
		t.Errorf("conversation segments %v, want %s", kinds, want)
	}
}

func TestHostGuard(t *testing.T) {
	dir := writeRun(t, t.TempDir(), fixture{steps: 2, evalEvery: 1, lr: 1e-5, seed: 1})
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		host string
		code int
	}{
		{"127.0.0.1:8090", 200},
		{"localhost:8090", 200},
		{"LOCALHOST", 200},
		{"[::1]:8090", 200},
		{"192.168.1.5:8090", 200},
		{"evil.example:8090", 403},
		{"127.0.0.1.nip.io", 403},
	}
	for _, c := range cases {
		req := httptest.NewRequest("GET", "/api/runs", nil)
		req.Host = c.host
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != c.code {
			t.Errorf("Host %s: status %d, want %d", c.host, rec.Code, c.code)
		}
	}
}

func TestDiffs(t *testing.T) {
	cases := []struct {
		name string
		cfgs []map[string]string
		want string
	}{
		{"identical", []map[string]string{{"a": "1"}, {"a": "1"}}, ""},
		{"one differs", []map[string]string{{"a": "1", "b": "x"}, {"a": "2", "b": "x"}}, "a=1|2"},
		{"missing key", []map[string]string{{"a": "1"}, {}}, "a=1|<nil>"},
		{"three runs, sorted", []map[string]string{{"z": "1", "m": "1"}, {"z": "1", "m": "1"}, {"z": "2", "m": "3"}}, "m=1|1|3 z=1|1|2"},
	}
	for _, c := range cases {
		var parts []string
		for _, d := range Diffs(c.cfgs) {
			var vs []string
			for _, v := range d.Values {
				if v == nil {
					vs = append(vs, "<nil>")
				} else {
					vs = append(vs, *v)
				}
			}
			parts = append(parts, d.Key+"="+strings.Join(vs, "|"))
		}
		if got := strings.Join(parts, " "); got != c.want {
			t.Errorf("%s: diffs %q, want %q", c.name, got, c.want)
		}
	}
}

func TestReadConfigFlattens(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "config.yaml"), "seed: 2\nmodel:\n    hidden_size: 16\ntask:\n    arith:\n        ops:\n            - mul\n            - div\nreward:\n    weights: {}\n")
	got, err := Run{Dir: dir}.ReadConfig()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"seed": "2", "model.hidden_size": "16", "task.arith.ops": `["mul","div"]`, "reward.weights": "{}"}
	if len(got) != len(want) {
		t.Errorf("flattened %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	write(t, filepath.Join(dir, "config.yaml"), "seed: [\n")
	if _, err := (Run{Dir: dir}).ReadConfig(); err == nil || !strings.Contains(err.Error(), "runview: config.yaml") {
		t.Errorf("bad YAML: error %v", err)
	}
}

func TestEvalOrder(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "samples"), 0o755)
	for _, n := range []string{"final.jsonl", "step-000100.jsonl", "warmstart.jsonl", "step-000020.jsonl", "bench.jsonl", "notes.txt", ".hidden.jsonl"} {
		write(t, filepath.Join(dir, "samples", n), "{}\n{}\n")
	}
	evals, err := Run{Dir: dir}.Evals()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range evals {
		names = append(names, e.Name)
		if e.Samples != 2 {
			t.Errorf("%s: %d samples, want 2", e.Name, e.Samples)
		}
	}
	if got, want := strings.Join(names, " "), "warmstart step-000020 step-000100 bench final"; got != want {
		t.Errorf("evals in order %q, want %q", got, want)
	}
}

// TestParseMetricsLines: the fast reader of flat records and the JSON
// decoder it falls back to agree; odd lines are skipped, not fatal.
func TestParseMetricsLines(t *testing.T) {
	cases := []struct {
		line string
		want map[string]float64 // -999: null; nil: the line is skipped
	}{
		{`{"step":1,"a/b":0.5,"c":null}`, map[string]float64{"a/b": 0.5, "c": -999}},
		{` { "step" : 2 , "a/b" : -1e-3 } `, map[string]float64{"a/b": -0.001}},
		{`{"step":3,"a\/b":2,"s":"text","o":{"x":1}}`, map[string]float64{"a/b": 2}},
		{`{"step":4,"eval/x/pass@1":1}`, map[string]float64{"eval/x/pass@1": 1}},
		{`{"step":5,"a/b":NaN}`, nil},
		{`[1,2]`, nil},
		{`{"step":6,"a/b":1`, nil},
		{`{}`, map[string]float64{}},
	}
	for _, c := range cases {
		m := &Metrics{Series: map[string][]float64{}}
		parseMetrics([]byte(c.line+"\n"), m)
		if c.want == nil {
			if len(m.Steps) != 0 {
				t.Errorf("%s: read as %v %v, want skipped", c.line, m.Steps, m.Series)
			}
			continue
		}
		if len(m.Steps) != 1 || len(m.Series) != len(c.want) {
			t.Errorf("%s: steps %v series %v, want one step and %v", c.line, m.Steps, m.Series, c.want)
			continue
		}
		for k, v := range c.want {
			got := m.Series[k][0]
			if v == -999 && !math.IsNaN(got) || v != -999 && got != v {
				t.Errorf("%s: %s = %v, want %v", c.line, k, got, v)
			}
		}
	}
}

// TestSamplesCarryVerdictLabels: each sample comes with the word its
// family's verdicts are shown under, "verdict" for a family without one.
func TestSamplesCarryVerdictLabels(t *testing.T) {
	dir := writeRun(t, t.TempDir(), fixture{steps: 2, evalEvery: 1, lr: 1e-5, seed: 1})
	s, _ := New(dir)
	s.SetVerdictLabels(map[string]string{"bfcl": "checker"})
	_, body := get(t, s, "/api/samples?run=0&eval=warmstart")
	var got []struct {
		Family       string `json:"family"`
		VerdictLabel string `json:"verdict_label"`
	}
	if err := json.Unmarshal(body, &got); err != nil || len(got) == 0 {
		t.Fatalf("samples %s: %v", body, err)
	}
	for i, g := range got {
		want := "verdict"
		if g.Family == "bfcl" {
			want = "checker"
		}
		if g.VerdictLabel != want {
			t.Errorf("sample %d (%s): label %q, want %q", i, g.Family, g.VerdictLabel, want)
		}
	}
}
