// Package server serves one checkpoint on OpenAI-compatible endpoints
// (/v1/chat/completions with tools, /v1/completions with vLLM's
// token-in/token-out fields, /v1/models, /tokenize, /detokenize), for
// `artist serve` and for tests that need a real server in process.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
)

// Open loads the checkpoint folder dir (checkpoint.Open; a run
// folder stands for its latest checkpoint, checkpoint.Resolve) and
// its chat template (chat.Load, Qwen2.5's when it ships none, with a
// warning on warn) and returns its server; name "" is the folder's name.
func Open(dir, name string, seed int64, limits Limits, warn io.Writer) (*Server, error) {
	dir, err := checkpoint.Resolve(dir, warn) // a run folder: its latest
	if err != nil {
		return nil, err
	}
	ck, err := checkpoint.Open(dir, warn)
	if err != nil {
		return nil, err
	}
	tmpl, err := chat.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if tmpl.IsFallback() && warn != nil {
		fmt.Fprintf(warn, "server: %s ships no chat template; chats are rendered with Qwen2.5's\n", dir)
	}
	if name == "" {
		name = filepath.Base(filepath.Clean(dir))
	}
	s := New(ck.Model, ck.Tok, name, seed)
	s.tmpl, s.limits, s.tokDir = tmpl, limits, dir
	if s.tokSHA, err = checkpoint.FileSHA256(dir, policy.TokenizerJSONFile); err != nil {
		return nil, err
	}
	cur := s.current()
	cur.dir = dir
	if cur.sha, err = checkpoint.FileSHA256(dir, weightsFile); err != nil {
		return nil, err
	}
	return s, nil
}

// shutdownGrace is how long a stopping server lets requests in flight
// finish before it closes their connections.
const shutdownGrace = 3 * time.Second

// Serve serves srv on ln until ctx ends, then shuts it down, letting
// requests in flight finish for shutdownGrace.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener) error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close() // connections still open after the grace period
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// DefaultMaxBody bounds a request body unless Limits.MaxBody says
// otherwise.
const DefaultMaxBody = 16 << 20

// Limits bound what one request may ask for; zero fields mean the
// defaults (DefaultMaxBody, the model's context, 16 choices).
type Limits struct {
	MaxBody   int64 // request body bytes (413 past it)
	MaxTokens int   // completion tokens one request may ask for
	MaxN      int   // choices one request may ask for
}

// Server serves one model on the OpenAI-compatible endpoints. Distinct
// requests, and the choices of one request, decode in distinct sessions,
// and requests run concurrently. A completion ends on every stop id of the
// checkpoint's tokenizer (EOS and the eos_token_id values of
// generation_config.json), as training and evaluation rollouts do.
type Server struct {
	cur    atomic.Pointer[weights] // what new requests decode on
	loadMu sync.Mutex              // one weight update at a time
	gate   *gate                   // holds generation while paused
	tok    *policy.Tokenizer
	tokDir string         // the folder tok came from ("" for New)
	tokSHA string         // SHA-256 of tokDir's tokenizer.json ("" for New)
	tmpl   *chat.Template // renders chats; nil means chat.Fallback
	name   string
	cache  *idCache
	limits Limits
	maxLen int // the context, in tokens: prompt and completion
	// gen samples one choice; nil means the model (modelGen). Tests
	// script it.
	gen     genFunc
	created int64

	mu  sync.Mutex
	rng *rand.Rand // seeds of requests that send none
	id  int
}

// New serves m with tok under name; requests that send no seed draw one
// from a source seeded with seed.
func New(m *policy.Model, tok *policy.Tokenizer, name string, seed int64) *Server {
	s := &Server{tok: tok, name: name, cache: newIDCache(1024), maxLen: m.Config.MaxPositionEmbeddings,
		created: time.Now().Unix(), rng: rand.New(rand.NewSource(seed)), gate: newGate()}
	s.cur.Store(&weights{model: m, batch: newBatcher(m), version: defaultVersion})
	return s
}

// ServeHTTP routes a request to its endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	routes := map[string]struct {
		method string
		handle func(http.ResponseWriter, *http.Request) error
	}{
		openai.CompletionsPath: {http.MethodPost, s.completions},
		openai.ChatPath:        {http.MethodPost, s.chat},
		openai.ModelsPath:      {http.MethodGet, s.models},
		openai.TokenizePath:    {http.MethodPost, s.tokenize},
		openai.DetokenizePath:  {http.MethodPost, s.detokenize},

		openai.UpdateWeightsPath:      {http.MethodPost, s.updateWeights},
		openai.ModelInfoPath:          {http.MethodGet, s.modelInfo},
		openai.PauseGenerationPath:    {http.MethodPost, s.pauseGeneration},
		openai.ContinueGenerationPath: {http.MethodPost, s.continueGeneration},
	}
	route, ok := routes[r.URL.Path]
	switch {
	case !ok:
		paths := make([]string, 0, len(routes))
		for p := range routes {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		writeError(w, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("no endpoint %s: this server answers %s", r.URL.Path, strings.Join(paths, ", "))})
		return
	case r.Method != route.method:
		writeError(w, &apiError{status: http.StatusMethodNotAllowed, msg: "use " + route.method + " " + r.URL.Path})
		return
	}
	maxBody := s.limits.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := route.handle(w, r); err != nil {
		writeError(w, err)
	}
}

// Name is the model name the server reports.
func (s *Server) Name() string { return s.name }

// models answers GET /v1/models: the one model served.
func (s *Server) models(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, openai.ModelList{Object: "list", Data: []openai.Model{{
		ID: s.name, Object: "model", Created: s.created, OwnedBy: "artist", MaxModelLen: s.context(),
	}}})
	return nil
}

// context is the model's context length in tokens.
func (s *Server) context() int { return s.maxLen }

// template is the chat template chats are rendered with.
func (s *Server) template() *chat.Template {
	if s.tmpl == nil {
		return chat.Fallback(chat.SpecialTokens{})
	}
	return s.tmpl
}

// nextID numbers answers.
func (s *Server) nextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.id++
	return s.id
}

// seedOf is the request's seed, or one drawn from the server's source.
func (s *Server) seedOf(seed *int64) int64 {
	if seed != nil {
		return *seed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Int63()
}

// apiError is an error answer: its status, message and the request field
// it is about ("" when none).
type apiError struct {
	status int
	msg    string
	param  string
}

func (e *apiError) Error() string { return e.msg }

// badField is a 400 about the request field param.
func badField(param, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...), param: param}
}

// writeError answers err as OpenAI's error object: an *apiError with its
// status, a body over the size limit with 413, anything else with 500.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &tooBig):
		ae = &apiError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body over %d bytes: send less, or start the server with a larger -max-request-bytes", tooBig.Limit)}
	default:
		ae = &apiError{status: http.StatusInternalServerError, msg: err.Error()}
	}
	kind := "invalid_request_error"
	switch {
	case ae.status == http.StatusNotFound:
		kind = "not_found_error"
	case ae.status >= 500:
		kind = "server_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ae.status)
	json.NewEncoder(w).Encode(openai.ErrorBody{Error: openai.ErrorDetail{Message: ae.msg, Type: kind, Param: ae.param, Code: ae.status}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	writeBody(w, v)
}

func writeBody(w http.ResponseWriter, v any) { json.NewEncoder(w).Encode(v) }

// decodeBody reads a JSON request body into v.
func decodeBody(r *http.Request, v any) error {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf("body is not a JSON request: %v", err)}
	}
	return nil
}
