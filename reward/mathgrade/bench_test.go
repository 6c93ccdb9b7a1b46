package mathgrade

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/rollout/format"
)

// testdataMix returns the pairs BenchmarkGradeTestdata grades, from the
// pair files alone so that it runs from a fresh clone: every pair (the
// spellings that need the structured comparison, half of them wrong), and
// every gold against its boxed form (equal, mostly after normalisation).
func testdataMix(b *testing.B) (pairs, boxed [][2]string) {
	for _, path := range pairFiles(b) {
		for _, p := range readPairs(b, path) {
			pairs = append(pairs, [2]string{p.pred, p.gold})
			boxed = append(boxed, [2]string{`\boxed{` + p.gold + `}`, p.gold})
		}
	}
	return pairs, boxed
}

// BenchmarkGradeTestdata measures grading throughput in pairs/s on a
// fixed mix from testdata: the pairs, the boxed golds, both together, and
// Extract then Equal on responses that end in a boxed answer after about
// 2,000 bytes of reasoning.
func BenchmarkGradeTestdata(b *testing.B) {
	pairs, boxed := testdataMix(b)
	mix := append(append([][2]string{}, pairs...), boxed...)
	for _, c := range []struct {
		name  string
		pairs [][2]string
	}{{"pairs", pairs}, {"boxed", boxed}, {"mix", mix}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				p := c.pairs[i%len(c.pairs)]
				Equal(p[0], p[1])
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
	f := format.DefaultFormat()
	reasoning := strings.Repeat(`We have $x^2 + y^2 = \frac{1}{2}$, so the sum is \(3\). `, 35)
	responses := make([]string, len(mix))
	for i, p := range mix {
		responses[i] = reasoning + `Therefore the answer is $\boxed{` + p[0] + `}$.`
	}
	b.Run("extract+mix", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			k := i % len(mix)
			if a, ok := Extract(responses[k], f); ok {
				Equal(a, mix[k][1])
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
}
