package trainer

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/artist-rl/artist/internal/atomicfile"
)

// curve is one line of a panel: a metric key and its colour.
type curve struct {
	key   string
	label string
	color color.RGBA
}

var (
	// palette colours the reward components in order.
	palette = []color.RGBA{
		{B: 200, A: 255}, {G: 150, A: 255}, {R: 150, B: 150, A: 255}, {R: 220, G: 140, A: 255},
		{R: 150, G: 100, A: 255}, {G: 150, B: 150, A: 255}, {R: 100, G: 100, B: 100, A: 255},
	}
	accuracyCurves = []curve{
		{"train/accuracy", "train accuracy", color.RGBA{R: 200, A: 255}},
		{"eval/*/pass@1", "held-out pass@1", color.RGBA{B: 200, A: 255}},
		{"rollout/tool_calls/mean", "tool calls / rollout", color.RGBA{G: 150, A: 255}},
	}
)

// rewardCurves are the total and one curve per reward component, each
// labelled with its registered name.
func rewardCurves(components []string) []curve {
	out := []curve{{"reward/mean", "reward (total)", color.RGBA{R: 200, A: 255}}}
	for i, name := range components {
		out = append(out, curve{"reward/" + name + "/mean", name, palette[i%len(palette)]})
	}
	return out
}

// PlotRun draws reward_curve.png in a run folder from its metrics.jsonl:
// rewards on top (the total and each of components, the run's reward
// component names), accuracy and tool use below, against the GRPO step.
func PlotRun(runDir string, components []string) error {
	recs, err := ReadMetrics(filepath.Join(runDir, "metrics.jsonl"))
	if err != nil {
		return err
	}
	top, err := panel("Reward per GRPO step", "reward", recs, rewardCurves(components))
	if err != nil {
		return err
	}
	bottom, err := panel("Accuracy and tool use", "", recs, accuracyCurves)
	if err != nil {
		return err
	}
	img := vgimg.New(8*vg.Inch, 8*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 3 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	return atomicfile.Write(filepath.Join(runDir, "reward_curve.png"), 0o644, func(out io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(out)
		return err
	})
}

func panel(title, ylabel string, recs []Metrics, curves []curve) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "GRPO step"
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Legend.Left = true
	for _, c := range curves {
		pts := series(recs, c.key)
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("trainer: plot %s: %w", c.key, err)
		}
		line.Color, points.Color = c.color, c.color
		points.Radius = vg.Points(1.5)
		p.Add(line, points)
		p.Legend.Add(c.label, line)
	}
	return p, nil
}

// series extracts (step, value) pairs of one key, sorted by step. The key
// may be a path.Match pattern (eval/*/pass@1); each record contributes
// the value of its first matching key in sorted order.
func series(recs []Metrics, key string) plotter.XYs {
	var pts plotter.XYs
	for _, m := range recs {
		v, ok := lookup(m, key)
		if !ok || math.IsNaN(v) {
			continue
		}
		pts = append(pts, plotter.XY{X: m["step"], Y: v})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
	return pts
}

func lookup(m Metrics, pattern string) (float64, bool) {
	if v, ok := m[pattern]; ok || !strings.ContainsAny(pattern, "*?[") {
		return v, ok
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ok, _ := path.Match(pattern, k); ok {
			return m[k], true
		}
	}
	return 0, false
}
