package runview

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

//go:embed static
var static embed.FS

// ErrNotRunFolder is wrapped by New's error for a folder that is not a
// run folder.
var ErrNotRunFolder = errors.New("not a run folder")

// Run is one run folder the server shows.
type Run struct {
	Name string `json:"name"` // shown on the page: the folder's base name, or the path given when base names repeat
	Dir  string `json:"-"`
}

// Server serves the page and the JSON endpoints over its runs.
type Server struct {
	runs   []Run
	mux    *http.ServeMux
	labels map[string]string // family -> the word shown before its verdicts
}

// SetVerdictLabels sets the word the rollout browser shows before the
// verdicts of each family (family.VerdictLabels); a family not in labels
// shows "verdict". Call it before serving.
func (s *Server) SetVerdictLabels(labels map[string]string) { s.labels = labels }

// New checks that every dir is a run folder and returns a server over them.
func New(dirs ...string) (*Server, error) {
	if len(dirs) == 0 {
		return nil, errors.New("runview: no run folder given")
	}
	s := &Server{mux: http.NewServeMux()}
	base := map[string]int{}
	for _, d := range dirs {
		if err := checkRunFolder(d); err != nil {
			return nil, err
		}
		base[filepath.Base(filepath.Clean(d))]++
	}
	for _, d := range dirs {
		name := filepath.Base(filepath.Clean(d))
		if base[name] > 1 {
			name = filepath.Clean(d)
		}
		s.runs = append(s.runs, Run{Name: name, Dir: d})
	}
	sub, _ := fs.Sub(static, "static")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(sub)))
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, sub, "index.html")
	})
	s.mux.HandleFunc("GET /api/runs", s.handleRuns)
	s.mux.HandleFunc("GET /api/summary", s.handleSummary)
	s.mux.HandleFunc("GET /api/metrics", s.handleMetrics)
	s.mux.HandleFunc("GET /api/config", s.handleConfig)
	s.mux.HandleFunc("GET /api/evals", s.handleEvals)
	s.mux.HandleFunc("GET /api/samples", s.handleSamples)
	return s, nil
}

// checkRunFolder requires a folder that holds config.yaml or metrics.jsonl.
func checkRunFolder(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("runview: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("runview: %s: %w: it is a file; give the run folder (the config's run_dir)", dir, ErrNotRunFolder)
	}
	for _, name := range []string{"config.yaml", "metrics.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			return nil
		}
	}
	return fmt.Errorf("runview: %s: %w: it holds neither config.yaml nor metrics.jsonl (artist train writes them into the config's run_dir)", dir, ErrNotRunFolder)
}

// Runs returns the runs the server shows, in the order given to New.
func (s *Server) Runs() []Run { return append([]Run(nil), s.runs...) }

// ServeHTTP serves the page and the endpoints of the package doc. A
// request whose Host is neither an IP address nor localhost is refused
// (403): a web page elsewhere that rebinds its host name to this machine
// reads nothing.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !directHost(r.Host) {
		writeError(w, http.StatusForbidden, fmt.Errorf("runview: host %q refused: open the page by IP address or localhost", r.Host))
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'")
	s.mux.ServeHTTP(w, r)
}

// run returns the run the request's run parameter names.
func (s *Server) run(r *http.Request) (Run, error) {
	i, err := strconv.Atoi(r.URL.Query().Get("run"))
	if err != nil || i < 0 || i >= len(s.runs) {
		return Run{}, fmt.Errorf("runview: run must be an index from 0 to %d", len(s.runs)-1)
	}
	return s.runs[i], nil
}

// readFile reads name inside the run folder and nowhere else.
func (run Run) readFile(name string) ([]byte, error) {
	f, err := os.OpenInRoot(run.Dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("runview: %s is not a regular file", name)
	}
	return io.ReadAll(f)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}

func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	type item struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	out := make([]item, len(s.runs))
	for i, run := range s.runs {
		out[i] = item{i, run.Name}
	}
	writeJSON(w, out)
}

func (s *Server) handleSummary(w http.ResponseWriter, r *http.Request) {
	run, err := s.run(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	b, err := run.readFile("summary.json")
	if errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusNotFound, errors.New("runview: no summary.json yet: the run has not finished"))
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("runview: summary: %w", err))
		return
	}
	if !json.Valid(b) {
		writeError(w, http.StatusInternalServerError, errors.New("runview: summary.json is not valid JSON"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// directHost reports whether host (with or without port) is an IP
// address or localhost.
func directHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return net.ParseIP(host) != nil || strings.EqualFold(host, "localhost")
}
