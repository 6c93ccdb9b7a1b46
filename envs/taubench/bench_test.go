package taubench

import (
	"testing"

	"github.com/artist-rl/artist/internal/pyval"
)

// BenchmarkEpisodeHash times a fresh env, one write and the final hash on
// the fixture's retail database, the cost the reward adds per episode.
func BenchmarkEpisodeHash(b *testing.B) {
	d := loadDomain(b, fixture+"/"+Retail, Retail)
	args := pyval.NewDict("order_id", "#W0000001", "reason", "no longer needed")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		env := d.NewEnv()
		env.Call("cancel_pending_order", args)
		_ = env.Hash()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
}

// BenchmarkCalculate times the calculate tool on a gold expression.
func BenchmarkCalculate(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Calculate("200.8 + 96.35 + 193.38 + 231.37 + 196.53")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
