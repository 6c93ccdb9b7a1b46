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
	"strings"
	"sync"
	"time"

	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/trainer"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("checkpoint", "", "checkpoint `DIR` (model.safetensors, config.json, tokenizer.json; tokenizer_config.json and generation_config.json name the stop tokens)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0 picks a free one)")
	name := fs.String("model", "", "model name reported in answers (default: the checkpoint folder's name)")
	seed := fs.Int64("seed", 1, "seed of the requests that send none")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *ckpt == "" {
		fmt.Fprintln(stderr, "artist serve: -checkpoint DIR is required")
		return errUsage
	}
	ck, err := trainer.LoadCheckpoint(*ckpt, stderr)
	if err != nil {
		return err
	}
	m, tok := ck.Model, ck.Tok
	if *name == "" {
		*name = filepath.Base(filepath.Clean(*ckpt))
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: newCompletions(m, tok, *name, *seed), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "artist serve: %s on http://%s/v1/completions\n", *name, ln.Addr())
	return serveUntil(ctx, srv, ln)
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

// completions serves POST /v1/completions with one model. Distinct
// requests decode in distinct sessions and may run concurrently. A
// completion ends on every stop id of the checkpoint's tokenizer (EOS and
// the eos_token_id values of generation_config.json), as training and
// evaluation rollouts do.
type completions struct {
	model  *policy.Model
	policy rollout.Policy // decodes with model
	tok    *policy.Tokenizer
	name   string
	cache  *idCache

	mu  sync.Mutex
	rng *rand.Rand // seeds of requests that send none
	id  int
}

func newCompletions(m *policy.Model, tok *policy.Tokenizer, name string, seed int64) *completions {
	return &completions{model: m, policy: trainer.PolicyOf(m), tok: tok, name: name, cache: newIDCache(1024), rng: rand.New(rand.NewSource(seed))}
}

// ServeHTTP answers a completion. The prompt is encoded with the
// checkpoint's tokenizer, except for a prefix that is the text of a recent
// prompt and its completion: that prefix keeps the token ids the model saw
// and sampled, so a client that continues a completion (appending the stop
// string and a tool result) gets what a token-level rollout would.
func (c *completions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != openai.CompletionsPath {
		httpError(w, http.StatusNotFound, "only POST "+openai.CompletionsPath+" is served")
		return
	}
	if r.Method != http.MethodPost {
		httpError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	prompt, cfg, seed, err := c.parse(r)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	ids := c.cache.encode(prompt, c.tok)
	room := c.model.Config.MaxPositionEmbeddings - len(ids)
	if room < 1 {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("prompt has %d tokens; the model's context holds %d", len(ids), c.model.Config.MaxPositionEmbeddings))
		return
	}
	cfg.MaxTokens = min(cfg.MaxTokens, room) // the context bounds the completion
	comp, err := rollout.Complete(r.Context(), c.policy, c.tok, ids, cfg, rand.New(rand.NewSource(seed)))
	if err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	c.cache.put(prompt+c.tok.Decode(comp.Tokens), append(ids[:len(ids):len(ids)], comp.Tokens...))
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(c.answer(comp, len(ids)))
}

func (c *completions) answer(comp rollout.Completion, promptLen int) openai.Completion {
	choice := openai.Choice{Text: comp.Text, FinishReason: "stop"}
	if comp.Length {
		choice.FinishReason = "length"
	}
	if comp.Stop != "" {
		choice.StopReason = openai.Text(comp.Stop) // the stop string matched; null otherwise (vLLM's field)
	}
	c.mu.Lock()
	c.id++
	id := c.id
	c.mu.Unlock()
	n := len(comp.Tokens)
	return openai.Completion{
		ID: fmt.Sprintf("cmpl-%d", id), Object: "text_completion", Created: time.Now().Unix(), Model: c.name,
		Choices: []openai.Choice{choice},
		Usage:   openai.Usage{PromptTokens: promptLen, CompletionTokens: n, TotalTokens: promptLen + n},
	}
}

// parse reads and checks a request. Defaults are OpenAI's: 16 tokens,
// temperature 1, top_p 1, no stop strings.
func (c *completions) parse(r *http.Request) (string, rollout.CompleteConfig, int64, error) {
	var in openai.CompletionRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, 16<<20))
	if err := dec.Decode(&in); err != nil {
		return "", rollout.CompleteConfig{}, 0, fmt.Errorf("body is not a JSON object: %v", err)
	}
	var prompt string
	if err := json.Unmarshal(in.Prompt, &prompt); err != nil || prompt == "" {
		return "", rollout.CompleteConfig{}, 0, errors.New("prompt must be a non-empty string")
	}
	cfg := rollout.CompleteConfig{MaxTokens: 16, Temperature: 1, TopP: 1}
	if in.MaxTokens != nil {
		cfg.MaxTokens = *in.MaxTokens
	}
	if in.Temperature != nil {
		cfg.Temperature = *in.Temperature
	}
	if in.TopP != nil {
		cfg.TopP = *in.TopP
	}
	if in.N != nil && *in.N != 1 {
		return "", cfg, 0, errors.New("n must be 1")
	}
	if cfg.MaxTokens < 1 || !(cfg.Temperature >= 0 && cfg.Temperature <= 100) || !(cfg.TopP > 0 && cfg.TopP <= 1) {
		return "", cfg, 0, errors.New("need max_tokens >= 1, 0 <= temperature <= 100 and 0 < top_p <= 1")
	}
	var err error
	if cfg.Stop, err = openai.ParseStop(in.Stop); err != nil {
		return "", cfg, 0, err
	}
	if in.Seed != nil {
		return prompt, cfg, *in.Seed, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return prompt, cfg, c.rng.Int63(), nil
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	kind := "invalid_request_error"
	if code >= 500 {
		kind = "server_error"
	}
	json.NewEncoder(w).Encode(openai.ErrorBody{Error: openai.ErrorDetail{Message: msg, Type: kind, Code: code}})
}

// idCache maps the text of recent prompts with their completions to the
// token ids behind them, oldest evicted first.
type idCache struct {
	mu    sync.Mutex
	limit int
	order []string
	ids   map[string][]int
}

func newIDCache(limit int) *idCache { return &idCache{limit: limit, ids: map[string][]int{}} }

func (c *idCache) put(text string, ids []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.ids[text]; !ok {
		c.order = append(c.order, text)
	}
	c.ids[text] = ids
	for len(c.order) > c.limit {
		delete(c.ids, c.order[0])
		c.order = c.order[1:]
	}
}

// encode returns the ids of the longest cached text that prefixes prompt,
// followed by the encoding of the rest of prompt.
func (c *idCache) encode(prompt string, tok *policy.Tokenizer) []int {
	c.mu.Lock()
	best := ""
	for text := range c.ids {
		if len(text) > len(best) && strings.HasPrefix(prompt, text) {
			best = text
		}
	}
	head := c.ids[best]
	c.mu.Unlock()
	if best == "" {
		return tok.Encode(prompt)
	}
	return append(head[:len(head):len(head)], tok.Encode(prompt[len(best):])...)
}
