package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/trainer"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("checkpoint", "", "checkpoint `DIR` (model.safetensors, config.json, tokenizer.json; tokenizer_config.json and generation_config.json name the stop tokens; chat_template.jinja or tokenizer_config.json's chat_template renders chats)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0 picks a free one)")
	name := fs.String("model", "", "model name reported in answers (default: the checkpoint folder's name)")
	seed := fs.Int64("seed", 1, "seed of the requests that send none")
	maxBody := fs.Int64("max-request-bytes", defaultMaxBody, "refuse request bodies longer than `N` bytes (413)")
	maxTokens := fs.Int("max-tokens", 0, "refuse requests for more than `N` completion tokens (0: the model's context)")
	maxN := fs.Int("max-n", 16, "refuse requests for more than `N` choices")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *ckpt == "" {
		fmt.Fprintln(stderr, "artist serve: -checkpoint DIR is required")
		return errUsage
	}
	if *maxBody < 1 || *maxTokens < 0 || *maxN < 1 {
		fmt.Fprintln(stderr, "artist serve: -max-request-bytes and -max-n must be >= 1, -max-tokens >= 0")
		return errUsage
	}
	s, err := openServer(*ckpt, *name, *seed, serveLimits{maxBody: *maxBody, maxTokens: *maxTokens, maxN: *maxN}, stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "artist serve: %s on http://%s (%s, %s, %s, %s, %s)\n", s.name, ln.Addr(),
		openai.ChatPath, openai.CompletionsPath, openai.ModelsPath, openai.TokenizePath, openai.DetokenizePath)
	return serveUntil(ctx, srv, ln)
}

// openServer loads the checkpoint folder dir (trainer.LoadCheckpoint) and
// its chat template (chat.Load, Qwen2.5's when it ships none, with a
// warning on warn) and returns its server; name "" is the folder's name.
func openServer(dir, name string, seed int64, limits serveLimits, warn io.Writer) (*server, error) {
	ck, err := trainer.LoadCheckpoint(dir, warn)
	if err != nil {
		return nil, err
	}
	tmpl, err := chat.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("artist serve: %w", err)
	}
	if tmpl.IsFallback() && warn != nil {
		fmt.Fprintf(warn, "artist serve: %s ships no chat template; chats are rendered with Qwen2.5's\n", dir)
	}
	if name == "" {
		name = filepath.Base(filepath.Clean(dir))
	}
	s := newServer(ck.Model, ck.Tok, name, seed)
	s.tmpl, s.limits = tmpl, limits
	return s, nil
}

// shutdownGrace is how long a stopping server lets requests in flight
// finish before it closes their connections.
const shutdownGrace = 3 * time.Second

// serveUntil serves on ln until ctx ends, then shuts the server down,
// letting requests in flight finish for shutdownGrace.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener) error {
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

// defaultMaxBody bounds a request body unless -max-request-bytes says
// otherwise.
const defaultMaxBody = 16 << 20

// serveLimits bound what one request may ask for; zero fields mean the
// defaults (defaultMaxBody, the model's context, 16 choices).
type serveLimits struct {
	maxBody   int64
	maxTokens int
	maxN      int
}

// server serves one model on the OpenAI-compatible endpoints. Distinct
// requests, and the choices of one request, decode in distinct sessions,
// and requests run concurrently. A completion ends on every stop id of the
// checkpoint's tokenizer (EOS and the eos_token_id values of
// generation_config.json), as training and evaluation rollouts do.
type server struct {
	model  *policy.Model
	policy rollout.Policy // decodes with model
	tok    *policy.Tokenizer
	tmpl   *chat.Template // renders chats; nil means chat.Fallback
	name   string
	cache  *idCache
	limits serveLimits
	maxLen int // the context, in tokens: prompt and completion
	// gen samples one choice; nil means the model (modelGen). Tests
	// script it.
	gen     genFunc
	created int64

	mu  sync.Mutex
	rng *rand.Rand // seeds of requests that send none
	id  int
}

func newServer(m *policy.Model, tok *policy.Tokenizer, name string, seed int64) *server {
	return &server{model: m, policy: trainer.PolicyOf(m), tok: tok, name: name, cache: newIDCache(1024), maxLen: m.Config.MaxPositionEmbeddings,
		created: time.Now().Unix(), rng: rand.New(rand.NewSource(seed))}
}

// ServeHTTP routes a request to its endpoint.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	routes := map[string]struct {
		method string
		handle func(http.ResponseWriter, *http.Request) error
	}{
		openai.CompletionsPath: {http.MethodPost, s.completions},
		openai.ChatPath:        {http.MethodPost, s.chat},
		openai.ModelsPath:      {http.MethodGet, s.models},
		openai.TokenizePath:    {http.MethodPost, s.tokenize},
		openai.DetokenizePath:  {http.MethodPost, s.detokenize},
	}
	route, ok := routes[r.URL.Path]
	switch {
	case !ok:
		writeError(w, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("no endpoint %s: this server answers %s, %s, %s, %s and %s",
			r.URL.Path, openai.ChatPath, openai.CompletionsPath, openai.ModelsPath, openai.TokenizePath, openai.DetokenizePath)})
		return
	case r.Method != route.method:
		writeError(w, &apiError{status: http.StatusMethodNotAllowed, msg: "use " + route.method + " " + r.URL.Path})
		return
	}
	maxBody := s.limits.maxBody
	if maxBody <= 0 {
		maxBody = defaultMaxBody
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := route.handle(w, r); err != nil {
		writeError(w, err)
	}
}

// models answers GET /v1/models: the one model served.
func (s *server) models(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, openai.ModelList{Object: "list", Data: []openai.Model{{
		ID: s.name, Object: "model", Created: s.created, OwnedBy: "artist", MaxModelLen: s.context(),
	}}})
	return nil
}

// context is the model's context length in tokens.
func (s *server) context() int { return s.maxLen }

// template is the chat template chats are rendered with.
func (s *server) template() *chat.Template {
	if s.tmpl == nil {
		return chat.Fallback(chat.SpecialTokens{})
	}
	return s.tmpl
}

// nextID numbers answers.
func (s *server) nextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.id++
	return s.id
}

// seedOf is the request's seed, or one drawn from the server's source.
func (s *server) seedOf(seed *int64) int64 {
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
	json.NewEncoder(w).Encode(v)
}

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
