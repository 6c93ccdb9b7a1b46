package atlass

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/atlass/atlasstest"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout/format"
)

// serveScript starts a server that plays the scripts testdata/NAME in
// order, closed with the test.
func serveScript(t *testing.T, names ...string) *scripted {
	t.Helper()
	var steps []atlasstest.Step
	for _, n := range names {
		s, err := atlasstest.ReadScript(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, s...)
	}
	srv := atlasstest.NewServer(PhaseOf, steps...)
	t.Cleanup(srv.Close)
	return &scripted{srv}
}

type scripted struct{ *atlasstest.Server }

// check fails the test unless the script was played to its end, in order.
func (s *scripted) check(t *testing.T) {
	t.Helper()
	if err := s.Check(); err != nil {
		t.Error(err)
	}
}

// lastUser is the text of the last user message of req.
func lastUser(t *testing.T, req openai.ChatRequest) string {
	t.Helper()
	return atlasstest.LastUser(req)
}

// pipeline wires a Pipeline to the server, the database and the code
// tool.
func (s *scripted) pipeline(db ToolDB, code *recorder) *Pipeline {
	return &Pipeline{
		Chat:   &ClientChat{Client: &openai.Client{URL: s.URL, Retries: -1}, Model: "scripted", Temperature: openai.Ptr(0.0)},
		Solver: &ChatSolver{URL: s.URL, Model: "scripted", Retries: -1, Config: SolverConfig(), Format: format.DefaultFormat()},
		DB:     db,
		Code:   code,
	}
}

func TestPhaseOf(t *testing.T) {
	systems := map[string]string{
		"analyze": analyzerSystem, "plan": masterSystem, "select": selectorSystem, "generate": generatorSystem,
		"solve": render(solverSystem, map[string]any{"Listing": "", "Open": "<answer>", "Close": "</answer>"}),
		"":      "You are a helpful assistant.",
	}
	for want, system := range systems {
		if got := PhaseOf(system); got != want {
			t.Errorf("PhaseOf(%.40q...) = %q, want %q", system, got, want)
		}
	}
	for _, r := range roles {
		if strings.Count(strings.Join([]string{analyzerSystem, masterSystem, selectorSystem, generatorSystem}, "\n"), r.role) > 1 {
			t.Errorf("role %q opens more than one prompt", r.role)
		}
	}
}
