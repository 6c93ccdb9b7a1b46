// Package atlasstest replays scripted model replies for tests of the
// ATLASS pipeline: a chat-completions server that answers each phase's
// requests with fixed replies, in order, and records what it was sent.
package atlasstest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"

	"github.com/artist-rl/artist/openai"
)

// Step is one scripted reply: the phase whose request it answers and the
// reply's text, or, for a call, the Go snippet sent as a run_go call.
type Step struct {
	Phase string
	Call  bool
	Text  string
}

// ReadScript reads a script file: sections each opened by a line
// "-- PHASE --" (a text reply) or "-- PHASE call --" (a run_go call), the
// reply following, trimmed of surrounding space.
func ReadScript(path string) ([]Step, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var steps []Step
	for i, line := range strings.SplitAfter(string(data), "\n") {
		head := strings.TrimSpace(line)
		if strings.HasPrefix(head, "-- ") && strings.HasSuffix(head, " --") {
			f := strings.Fields(strings.Trim(head, "- "))
			if len(f) == 0 || len(f) > 2 || len(f) == 2 && f[1] != "call" {
				return nil, fmt.Errorf("%s:%d: bad section header %q: want -- PHASE -- or -- PHASE call --", path, i+1, head)
			}
			steps = append(steps, Step{Phase: f[0], Call: len(f) == 2})
			continue
		}
		if len(steps) == 0 {
			if head != "" {
				return nil, fmt.Errorf("%s:%d: text before the first section", path, i+1)
			}
			continue
		}
		steps[len(steps)-1].Text += line
	}
	for i := range steps {
		steps[i].Text = strings.TrimSpace(steps[i].Text)
	}
	return steps, nil
}

// Server is a chat-completions server that answers with its steps in
// order. PhaseOf names the phase of a request from its first (system)
// message; a request of another phase than the next step's, or one past
// the last step, is answered 400 and recorded as a mismatch.
type Server struct {
	*httptest.Server
	phaseOf func(system string) string

	mu         sync.Mutex
	steps      []Step
	requests   []openai.ChatRequest
	phases     []string
	mismatches []string
}

// NewServer starts a Server; Close it when done.
func NewServer(phaseOf func(system string) string, steps ...Step) *Server {
	s := &Server{phaseOf: phaseOf, steps: steps}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatRequest
	if r.URL.Path != openai.ChatPath || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	system, _ := openai.MessageText(req.Messages[0].Content)
	phase := s.phaseOf(system)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.phases = append(s.requests, req), append(s.phases, phase)
	n := len(s.requests)
	if n > len(s.steps) || s.steps[n-1].Phase != phase {
		want := "the end of the script"
		if n <= len(s.steps) {
			want = s.steps[n-1].Phase
		}
		s.mismatches = append(s.mismatches, fmt.Sprintf("request %d is of phase %q, the script expects %s", n, phase, want))
		http.Error(w, s.mismatches[len(s.mismatches)-1], http.StatusBadRequest)
		return
	}
	st := s.steps[n-1]
	msg, finish := openai.AnswerMessage{Role: "assistant", Content: openai.Ptr(st.Text)}, "stop"
	if st.Call {
		args, _ := json.Marshal(map[string]string{"code": st.Text})
		msg.Content, finish = nil, "tool_calls"
		msg.ToolCalls = []openai.ToolCall{{ID: fmt.Sprintf("call_%d", n), Type: "function", Function: openai.FunctionCall{Name: "run_go", Arguments: string(args)}}}
	}
	json.NewEncoder(w).Encode(openai.ChatCompletion{Object: "chat.completion", Choices: []openai.ChatChoice{{Message: msg, FinishReason: finish}},
		Usage: openai.Usage{CompletionTokens: 10}})
}

// Check reports the mismatches, and a script not played to its end.
func (s *Server) Check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, m := range s.mismatches {
		errs = append(errs, errors.New(m))
	}
	if len(s.requests) != len(s.steps) {
		errs = append(errs, fmt.Errorf("the server got %d requests (phases %v); the script has %d steps", len(s.requests), s.phases, len(s.steps)))
	}
	return errors.Join(errs...)
}

// Asked returns the requests of phase, in order.
func (s *Server) Asked(phase string) []openai.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []openai.ChatRequest
	for i, p := range s.phases {
		if p == phase {
			out = append(out, s.requests[i])
		}
	}
	return out
}

// LastUser is the text of the last user message of req, "" when none.
func LastUser(req openai.ChatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			s, _ := openai.MessageText(req.Messages[i].Content)
			return s
		}
	}
	return ""
}
