package runview

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/internal/runlog"
)

// evalName is what an eval's file name may be, before .jsonl.
var evalName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Eval is one samples/<name>.jsonl of a run.
type Eval struct {
	Name    string `json:"name"`
	Samples int    `json:"samples"` // lines in the file
}

// Evals lists the run's samples/*.jsonl files (regular files with plain
// names only), warm start first, then by step, the final eval last.
func (run Run) Evals() ([]Eval, error) {
	d, err := os.OpenInRoot(run.Dir, "samples")
	if errors.Is(err, fs.ErrNotExist) {
		return []Eval{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("runview: samples: %w", err)
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("runview: samples: %w", err)
	}
	out := []Eval{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !evalName.MatchString(name) || !e.Type().IsRegular() {
			continue
		}
		b, err := run.readFile("samples/" + e.Name())
		if err != nil {
			continue
		}
		out = append(out, Eval{Name: name, Samples: bytes.Count(b, []byte("\n"))})
	}
	slices.SortFunc(out, func(a, b Eval) int {
		if ra, rb := evalRank(a.Name), evalRank(b.Name); ra != rb {
			if ra < rb {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// evalRank orders eval tags: warmstart, step-N by N, others, final.
func evalRank(name string) float64 {
	switch {
	case name == "warmstart":
		return -1
	case name == "final":
		return 1e18
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(name, "step-")); err == nil && strings.HasPrefix(name, "step-") {
		return float64(n)
	}
	return 1e17
}

// ReadSamples reads samples/<eval>.jsonl. eval must be one of the names
// Evals returns; anything else (a path, "..") is refused.
func (run Run) ReadSamples(eval string) ([]runlog.Sample, error) {
	evals, err := run.Evals()
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(evals, func(e Eval) bool { return e.Name == eval }) {
		return nil, fmt.Errorf("runview: %w: no eval %q in samples/", fs.ErrNotExist, eval)
	}
	b, err := run.readFile("samples/" + eval + ".jsonl")
	if err != nil {
		return nil, fmt.Errorf("runview: samples: %w", err)
	}
	out, err := runlog.ReadSamples(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("runview: samples/%s.jsonl: %w", eval, err)
	}
	if out == nil {
		out = []runlog.Sample{}
	}
	return out, nil
}

func (s *Server) handleEvals(w http.ResponseWriter, r *http.Request) {
	run, err := s.run(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	evals, err := run.Evals()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, evals)
}

// labeledSample is a sample as the page gets it: with the word to show
// before its verdict.
type labeledSample struct {
	runlog.Sample
	VerdictLabel string `json:"verdict_label"`
}

// labeled gives each sample its family's verdict label ("verdict" when
// the family has none).
func (s *Server) labeled(samples []runlog.Sample) []labeledSample {
	out := make([]labeledSample, len(samples))
	for i, x := range samples {
		out[i] = labeledSample{Sample: x, VerdictLabel: "verdict"}
		if l := s.labels[x.Family]; l != "" {
			out[i].VerdictLabel = l
		}
	}
	return out
}

func (s *Server) handleSamples(w http.ResponseWriter, r *http.Request) {
	run, err := s.run(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	samples, err := run.ReadSamples(r.URL.Query().Get("eval"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		writeError(w, http.StatusNotFound, err)
	case err != nil:
		writeError(w, http.StatusInternalServerError, err)
	default:
		writeJSON(w, s.labeled(samples))
	}
}
