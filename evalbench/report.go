package evalbench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/artist-rl/artist/internal/atomicfile"
)

// WriteSamples writes one JSON object per sample to path atomically
// (readers see the old file or the whole new one).
func WriteSamples(path string, samples []Sample) error {
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for _, s := range samples {
			if err := enc.Encode(s); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("evalbench: samples: %w", err)
	}
	return nil
}

// WriteSummary writes the summaries as an indented JSON object keyed by
// benchmark to path atomically.
func WriteSummary(path string, sums []Summary) error {
	m := make(map[string]Summary, len(sums))
	for _, s := range sums {
		m[s.Bench] = s
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("evalbench: summary: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("evalbench: summary: %w", err)
	}
	return nil
}

// WriteOutputs creates dir and writes samples.jsonl and summary.json in it.
func WriteOutputs(dir string, samples []Sample, sums []Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("evalbench: %w", err)
	}
	if err := WriteSamples(filepath.Join(dir, "samples.jsonl"), samples); err != nil {
		return err
	}
	return WriteSummary(filepath.Join(dir, "summary.json"), sums)
}

// Table writes the summaries as an aligned text table.
func Table(w io.Writer, sums []Summary) {
	width := len("bench")
	for _, s := range sums {
		width = max(width, len(s.Bench))
	}
	fmt.Fprintf(w, "%-*s %8s %4s %7s %7s %7s %7s %6s %8s %6s\n",
		width, "bench", "problems", "k", "pass@1", "pass@k", "pass^k", "maj@k", "calls", "len", "trunc")
	for _, s := range sums {
		maj := fmt.Sprintf("%7.3f", s.MajK)
		if s.noVote {
			maj = fmt.Sprintf("%7s", "-") // no final answer to vote on
		}
		fmt.Fprintf(w, "%-*s %8d %4d %7.3f %7.3f %7.3f %s %6.2f %8.1f %6.3f\n",
			width, s.Bench, s.Problems, s.K, s.Pass1, s.PassK, s.PassHatK, maj, s.ToolCalls, s.ResponseLen, s.TruncatedFrac)
	}
}

// ProgressLine renders progress as a bar with the estimated time left,
// assuming the remaining problems take as long each as those done.
func ProgressLine(bench string, done, total int, elapsed time.Duration) string {
	const width = 20
	fill := 0
	if total > 0 {
		fill = done * width / total
	}
	eta := "?"
	if done > 0 {
		left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		eta = left.Round(time.Second).String()
	}
	return fmt.Sprintf("%s [%s%s] %d/%d ETA %s", bench, strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total, eta)
}
