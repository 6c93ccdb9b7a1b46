package trainer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/artist-rl/artist/internal/atomicfile"
)

// Metrics is one step's record: slash-separated keys (docs/ARCHITECTURE.md) to
// values. Written as one JSON object per line with "step" added.
type Metrics map[string]float64

// metricsLog appends step records to metrics.jsonl.
type metricsLog struct {
	f *os.File
}

// openMetrics opens path for appending after dropping every record past
// step keep (the records a resumed run is about to write again).
func openMetrics(path string, keep int) (*metricsLog, error) {
	if err := truncateMetrics(path, keep); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("trainer: metrics: %w", err)
	}
	return &metricsLog{f: f}, nil
}

func truncateMetrics(path string, keep int) error {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("trainer: metrics: %w", err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue // a torn last line from a killed run
		}
		if s, ok := rec["step"].(float64); ok && int(s) <= keep {
			out.Write(sc.Bytes())
			out.WriteByte('\n')
		}
	}
	return atomicfile.WriteFile(path, out.Bytes(), 0o644)
}

// write appends one record and syncs it to disk.
func (l *metricsLog) write(step int, m Metrics) error {
	if l.f == nil {
		return nil // a rank other than 0
	}
	rec := map[string]any{"step": step}
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			rec[k] = nil // JSON has no NaN; null marks it
			continue
		}
		rec[k] = v
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("trainer: metrics: %w", err)
	}
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("trainer: metrics: %w", err)
	}
	return l.f.Sync()
}

func (l *metricsLog) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// ReadMetrics loads a metrics.jsonl file (null values become NaN).
func ReadMetrics(path string) ([]Metrics, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trainer: metrics: %w", err)
	}
	var out []Metrics
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec map[string]*float64
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("trainer: metrics: %s line %d: %w", path, i+1, err)
		}
		m := Metrics{}
		for k, v := range rec {
			if v == nil {
				m[k] = math.NaN()
			} else {
				m[k] = *v
			}
		}
		out = append(out, m)
	}
	return out, nil
}
