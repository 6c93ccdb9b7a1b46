package runview

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/artist-rl/artist/internal/headless"
)

var (
	screenshots    = flag.String("screenshots", "", "TestScreenshots writes view-curves.png and view-rollouts.png of the page into this `folder`")
	screenshotRuns = flag.String("screenshot-runs", "", "comma-separated run `folders` TestScreenshots shows (default: two synthetic runs)")
)

// browser starts a headless Chromium, or skips the test when none is
// installed.
func browser(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	bin, err := headless.Find()
	if err != nil && headless.Required() {
		t.Fatal(err)
	}
	if err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	bctx, stop := headless.Start(ctx, bin, t.TempDir(), 1400, 1000)
	t.Cleanup(func() { stop(); cancel() })
	return bctx
}

// serve starts the server over dirs on a loopback port.
func serve(t testing.TB, dirs ...string) string {
	t.Helper()
	s, err := New(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVerdictLabels(map[string]string{"bfcl": "checker"}) // as bfcl.Family says
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL + "/"
}

// curvesJS reads what the curves view rendered.
const curvesJS = `(() => ({
  groups: [...document.querySelectorAll('#groups .group')].map(g => g.dataset.group),
  points: Object.fromEntries([...document.querySelectorAll('#groups .chart')].map(c => [c.dataset.metric, c.dataset.points || ''])),
  diff: [...document.querySelectorAll('#config-diff tr[data-key]')].map(r => r.dataset.key),
  summary: document.getElementById('summary').innerText,
}))()`

type curves struct {
	Groups  []string          `json:"groups"`
	Points  map[string]string `json:"points"`
	Diff    []string          `json:"diff"`
	Summary string            `json:"summary"`
}

// rolloutsJS picks filter values (id -> value), then reads the list.
const rolloutsJS = `(async (picks) => {
  for (const [id, v] of Object.entries(picks)) {
    const s = document.getElementById(id);
    s.value = v;
    s.dispatchEvent(new Event(s.tagName === 'INPUT' ? 'input' : 'change'));
  }
  await new Promise(r => setTimeout(r, 150));
  const cards = [...document.querySelectorAll('#rollouts .rollout')];
  const masked = document.querySelector('#rollouts .seg[data-kind="tool_result"]');
  return {
    n: cards.length,
    count: document.getElementById('r-count').textContent,
    families: [...new Set(cards.map(c => c.dataset.family))].sort(),
    stops: [...new Set(cards.map(c => c.dataset.stop))].sort(),
    correct: cards.filter(c => c.dataset.correct === 'true').length,
    kinds: cards.length ? [...cards[0].querySelectorAll('.seg')].map(s => s.dataset.kind + ':' + s.dataset.masked) : [],
    result: masked ? {masked: masked.dataset.masked, label: masked.querySelector('.seg-label').textContent,
      text: masked.querySelector('pre').textContent, tokens: masked.dataset.tokens,
      stripes: getComputedStyle(masked).backgroundImage} : null,
    checker: cards.filter(c => c.dataset.family === 'bfcl').map(c => c.querySelector('.verdict-text').textContent),
    others: cards.filter(c => c.dataset.family !== 'bfcl').map(c => (c.querySelector('.verdict-text') || {}).textContent || ''),
  };
})`

type rollouts struct {
	N        int      `json:"n"`
	Count    string   `json:"count"`
	Families []string `json:"families"`
	Stops    []string `json:"stops"`
	Correct  int      `json:"correct"`
	Kinds    []string `json:"kinds"`
	Result   *struct {
		Masked, Label, Text, Tokens, Stripes string
	} `json:"result"`
	Checker []string `json:"checker"`
	Others  []string `json:"others"`
}

func readRollouts(t *testing.T, ctx context.Context, picks map[string]string) rollouts {
	t.Helper()
	arg := "{"
	for k, v := range picks {
		arg += fmt.Sprintf("%q:%q,", k, v)
	}
	arg += "}"
	r, err := chromedp.Run(ctx, chromedp.Evaluate[rollouts](rolloutsJS+"("+arg+")", chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBrowserPage loads the page over two synthetic runs in headless
// Chromium and checks the rendered DOM: curves, summary, config diff,
// the rollout browser and its filters, and live refresh.
func TestBrowserPage(t *testing.T) {
	ctx := browser(t, 2*time.Minute)
	root := t.TempDir()
	fa := fixture{steps: 120, evalEvery: 20, lr: 1e-5, seed: 1, summary: true}
	a := writeRun(t, filepath.Join(root, "tiny-tool-arith"), fa)
	b := writeRun(t, filepath.Join(root, "tiny-tool-arith-lr3e-5"), fixture{steps: 80, evalEvery: 20, lr: 3e-5, seed: 2})
	url := serve(t, a, b)

	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatal(err)
	}
	c, err := chromedp.Run(ctx, chromedp.Evaluate[curves](curvesJS))
	if err != nil {
		t.Fatal(err)
	}
	if want := append(slices.Clone(groups), "other"); !slices.Equal(c.Groups, want) {
		t.Errorf("metric groups %v, want %v", c.Groups, want)
	}
	points := map[string]string{
		"reward/mean":        "120 80", // every step but the warm-start record 0
		"eval/arith/pass@1":  fmt.Sprint(fa.evalSteps(), " 5"),
		"grad/norm":          "119 79", // step 3 is null
		"tools/library_size": "120 80",
		"lr":                 "120 80",
	}
	for k, want := range points {
		if got := c.Points[k]; got != want {
			t.Errorf("chart %s shows %q points, want %q", k, got, want)
		}
	}
	for k, p := range c.Points {
		if p == "" {
			t.Errorf("chart %s was never drawn", k)
		}
	}
	for _, k := range []string{"grpo.lr", "grpo.steps", "seed"} {
		if !slices.Contains(c.Diff, k) {
			t.Errorf("config diff rows %v lack %s", c.Diff, k)
		}
	}
	if slices.Contains(c.Diff, "task.name") {
		t.Errorf("config diff lists task.name, which is the same in both runs")
	}
	for _, want := range []string{"0.125", "0.570", "411 s (6m51s)", "backend", "go", "no summary.json yet"} {
		if !strings.Contains(c.Summary, want) {
			t.Errorf("summary %q lacks %q", c.Summary, want)
		}
	}
	tip, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
	  const c = document.querySelector('.chart[data-metric="reward/mean"] canvas'), r = c.getBoundingClientRect();
	  c.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width / 2, clientY: r.top + 40, bubbles: true}));
	  return c.parentElement.querySelector('.tip').textContent;
	})()`))
	if err != nil || !strings.HasPrefix(tip, "step ") || !strings.Contains(tip, "tiny-tool-arith: ") || !strings.Contains(tip, "(raw ") {
		t.Errorf("hover tooltip %q (%v): want the step and each run's smoothed and raw value", tip, err)
	}
	// The header shows the last value as logged, and the smoothed one
	// labelled as such.
	head, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
	  const r = View.runs[0], ys = r.series['reward/mean'];
	  const last = document.querySelector('.chart[data-metric="reward/mean"] .last').textContent;
	  return [last, Plot.fmt(ys[ys.length - 1])];
	})()`))
	if err != nil || len(head) != 2 || !strings.HasPrefix(head[0], head[1]+" (smoothed ") {
		t.Errorf("reward/mean header %q (%v): want the last logged value first, then the smoothed one labelled", head, err)
	}
	type cfgRows struct{ All, Differ int }
	cr, err := chromedp.Run(ctx, chromedp.Evaluate[cfgRows](`(async () => {
	  document.querySelector('#tabs button[data-tab="config"]').click();
	  const all = document.querySelectorAll('#config tr[data-key]').length;
	  const box = document.getElementById('c-diff');
	  box.checked = true; box.dispatchEvent(new Event('change'));
	  await new Promise(r => setTimeout(r, 300));
	  const differ = document.querySelectorAll('#config tr[data-key]').length;
	  box.checked = false; box.dispatchEvent(new Event('change'));
	  return {all, differ};
	})()`, chromedp.EvalAwaitPromise))
	if err != nil || cr.All != 11 || cr.Differ != 3 {
		t.Errorf("config tab: %d rows, %d differing (%v); want 11 and 3", cr.All, cr.Differ, err)
	}

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#tabs button[data-tab="rollouts"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#rollouts .rollout`))); err != nil {
		t.Fatal(err)
	}
	r := readRollouts(t, ctx, nil)
	if r.N != 8 || r.Count != "8 of 8 rollouts" {
		t.Errorf("all evals: %d cards, %q; want 8", r.N, r.Count)
	}
	if want := []string{"prompt:true", "model:false", "tool_call:false", "tool_result:true", "model:false"}; !slices.Equal(r.Kinds, want) {
		t.Errorf("first rollout segments %v, want %v", r.Kinds, want)
	}
	if r.Result == nil || r.Result.Masked != "true" || !strings.Contains(r.Result.Label, "masked") ||
		!strings.Contains(r.Result.Label, r.Result.Tokens+" tok") || !strings.Contains(r.Result.Stripes, "repeating-linear-gradient") ||
		r.Result.Text != "<output>178377\n</output>\n" {
		t.Errorf("tool result segment %+v: want it marked masked, striped, with its token count", r.Result)
	}
	if len(r.Checker) != 2 || !strings.HasPrefix(r.Checker[0], "checker: ") {
		t.Errorf("function-calling verdicts %q, want the checker's", r.Checker)
	}
	for _, v := range r.Others {
		if v != "" && !strings.HasPrefix(v, "verdict: ") {
			t.Errorf("a verdict of a family without a label reads %q, want \"verdict: ...\"", v)
		}
	}
	filters := []struct {
		picks    map[string]string
		n        int
		families []string
		stops    []string
	}{
		{map[string]string{"r-verdict": "correct"}, 4, []string{"arith", "bfcl"}, []string{"answer", "eos"}},
		{map[string]string{"r-verdict": "all", "r-family": "bfcl"}, 2, []string{"bfcl"}, []string{"eos"}},
		{map[string]string{"r-family": "all", "r-stop": "length"}, 2, []string{"arith"}, []string{"length"}},
		{map[string]string{"r-stop": "all", "r-eval": "final"}, 4, []string{"arith", "bfcl"}, []string{"answer", "eos", "length"}},
		{map[string]string{"r-search": "docs"}, 1, []string{"bfcl"}, []string{"eos"}},
	}
	for _, f := range filters {
		r := readRollouts(t, ctx, f.picks)
		if r.N != f.n || !slices.Equal(r.Families, f.families) || !slices.Equal(r.Stops, f.stops) {
			t.Errorf("filters %v: %d rollouts, families %v, stops %v; want %d, %v, %v", f.picks, r.N, r.Families, r.Stops, f.n, f.families, f.stops)
		}
	}

	// Live refresh: the page follows metrics.jsonl as the run writes it.
	f, err := os.OpenFile(filepath.Join(a, "metrics.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fa.steps = 125
	f.WriteString(metricsLines(fa, 121, 125))
	f.Close()
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#tabs button[data-tab="curves"]`)),
		chromedp.Poll[chromedp.Void](`document.querySelector('.chart[data-metric="reward/mean"]').dataset.points === "125 80"`,
			chromedp.WithPollingTimeout(15*time.Second)))
	if err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('.chart[data-metric="reward/mean"]').dataset.points`))
		t.Errorf("after 5 more steps were written, reward/mean shows %q points, want \"125 80\": %v", got, err)
	}
}

// TestScreenshots writes the screenshots of the README when -screenshots
// names a folder: the curves view, and the rollout view on the final
// eval.
func TestScreenshots(t *testing.T) {
	if *screenshots == "" {
		t.Skip("no -screenshots folder given")
	}
	ctx := browser(t, 2*time.Minute)
	dirs := strings.Split(*screenshotRuns, ",")
	if *screenshotRuns == "" {
		root := t.TempDir()
		dirs = []string{
			writeRun(t, filepath.Join(root, "tiny-tool-arith"), fixture{steps: 120, evalEvery: 20, lr: 1e-5, seed: 1, summary: true}),
			writeRun(t, filepath.Join(root, "tiny-tool-arith-lr3e-5"), fixture{steps: 80, evalEvery: 20, lr: 3e-5, seed: 2}),
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(serve(t, dirs...)), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatal(err)
	}
	shoot(t, ctx, filepath.Join(*screenshots, "view-curves.png"))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#tabs button[data-tab="rollouts"]`)),
		chromedp.Poll[chromedp.Void](`document.getElementById('r-count').textContent !== ''`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatal(err)
	}
	readRollouts(t, ctx, map[string]string{"r-eval": "final"})
	shoot(t, ctx, filepath.Join(*screenshots, "view-rollouts.png"))
}

// shoot writes a PNG of the viewport.
func shoot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`), chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", path, len(png))
}

type paint struct {
	FirstPaint float64 `json:"firstPaint"` // ms from navigation start to the first charts drawn
	AllDrawn   float64 `json:"allDrawn"`   // ms to every chart drawn
	FCP        float64 `json:"fcp"`        // the browser's first-contentful-paint
	Fetched    float64 `json:"fetched"`    // ms to the end of the first metrics answer
	Points     string  `json:"points"`
	Charts     int     `json:"charts"`
}

const paintJS = `(() => ({
  firstPaint: artistView.firstPaintMs, allDrawn: artistView.allDrawnMs,
  fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {startTime: -1}).startTime,
  fetched: (performance.getEntriesByType('resource').find(e => e.name.includes('api/metrics')) || {responseEnd: -1}).responseEnd,
  points: document.querySelector('.chart[data-metric="reward/mean"]').dataset.points,
  charts: document.querySelectorAll('#groups .chart').length,
}))()`

// smoothJS changes the smoothing and resolves with the ms until every
// chart is drawn again.
const smoothJS = `new Promise(res => {
  const t0 = performance.now(), s = document.getElementById('smooth');
  s.value = '0.95'; s.dispatchEvent(new Event('input'));
  const check = () => artistView.dirty.size === 0 ? res(performance.now() - t0) : requestAnimationFrame(check);
  requestAnimationFrame(check);
})`

func loadPaint(t testing.TB, ctx context.Context, url string) paint {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatal(err)
	}
	p, err := chromedp.Run(ctx, chromedp.Evaluate[paint](paintJS))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBrowser10kSteps: a run of 10,000 steps loads, draws every point
// and stays responsive; the times are logged.
func TestBrowser10kSteps(t *testing.T) {
	ctx := browser(t, 2*time.Minute)
	dir := writeRun(t, t.TempDir(), fixture{steps: 10000, evalEvery: 100, lr: 1e-5, seed: 1, summary: true})
	url := serve(t, dir)
	p := loadPaint(t, ctx, url)
	if p.Points != "10000" {
		t.Errorf("reward/mean shows %q points, want 10000", p.Points)
	}
	smooth, err := chromedp.Run(ctx, chromedp.Evaluate[float64](smoothJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("10,000 steps, %d charts: first contentful paint %.0f ms, metrics fetched %.0f ms, first charts drawn %.0f ms, all charts drawn %.0f ms, redraw after a smoothing change %.0f ms",
		p.Charts, p.FCP, p.Fetched, p.FirstPaint, p.AllDrawn, smooth)
	if p.FirstPaint <= 0 || p.FirstPaint > 5000 || p.AllDrawn > 10000 || smooth > 3000 {
		t.Errorf("too slow for 10,000 steps: first charts %.0f ms (limit 5000), all %.0f ms (limit 10000), smoothing redraw %.0f ms (limit 3000)", p.FirstPaint, p.AllDrawn, smooth)
	}
}

// BenchmarkFirstPaint10kSteps reports the time from navigation to the
// first charts drawn for a 10,000-step run.
func BenchmarkFirstPaint10kSteps(b *testing.B) {
	ctx := browser(b, 10*time.Minute)
	url := serve(b, writeRun(b, b.TempDir(), fixture{steps: 10000, evalEvery: 100, lr: 1e-5, seed: 1, summary: true}))
	var first, all float64
	for b.Loop() {
		p := loadPaint(b, ctx, url)
		first += p.FirstPaint
		all += p.AllDrawn
	}
	b.ReportMetric(first/float64(b.N), "ms/first-paint")
	b.ReportMetric(all/float64(b.N), "ms/all-drawn")
}
