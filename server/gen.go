package server

import (
	"context"
	"encoding/json"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// sampled is one token of a choice: its id, its log-probability (as
// rollout.Completion.LogProbs holds it) and, when asked, the most likely
// tokens at its position.
type sampled struct {
	id   int
	logp float32
	top  []openai.TopLogprob
}

// genRequest is one choice to sample.
type genRequest struct {
	prompt []int
	cfg    rollout.CompleteConfig
	seed   int64
	top    int // alternatives to report per token (top_logprobs); 0: none
	w      *weights
}

// genFunc samples one choice. It calls emit with each piece of text once
// no stop string can cut it any more, with the tokens sampled since the
// last call; the pieces join to the completion's Text. Streaming and
// non-streaming answers are both built from these calls.
type genFunc func(ctx context.Context, req genRequest, emit func(text string, toks []sampled)) (rollout.Completion, error)

// generate samples one choice with the server's generator.
func (s *Server) generate(ctx context.Context, req genRequest, emit func(string, []sampled)) (rollout.Completion, error) {
	if err := s.gate.wait(ctx); err != nil {
		return rollout.Completion{}, err
	}
	if req.w == nil {
		req.w = s.current()
	}
	if s.gen != nil {
		return s.gen(ctx, req, emit)
	}
	return s.modelGen(ctx, req, emit)
}

// modelGen samples with the model (rollout.Complete), its sequence a row
// of the weights' batch (batcher). The text of a token
// is emitted one token late, short of the longest stop string less one
// byte and of a rune cut at its end: a stop string found later starts
// after that point, so what was emitted is never taken back.
func (s *Server) modelGen(ctx context.Context, req genRequest, emit func(string, []sampled)) (rollout.Completion, error) {
	hold := 0
	for _, st := range req.cfg.Stop {
		hold = max(hold, len(st)-1)
	}
	stops := rollout.StopIDs(s.tok)
	var acc strings.Builder
	sent := 0
	cfg := req.cfg
	cfg.NeedLogits = req.top > 0 // else the batch may draw on the device
	cfg.OnToken = func(id int, logp float32, logits []float32) {
		s.gate.wait(ctx) // a pause holds the request here; a cancelled ctx ends it at the next token
		t := sampled{id: id, logp: logp}
		if req.top > 0 {
			t.top = topLogprobs(logits, req.top, s.tok)
		}
		safe := max(sent, runeEnd(acc.String(), max(sent, acc.Len()-hold)))
		emit(acc.String()[sent:safe], []sampled{t})
		sent = safe
		if !slices.Contains(stops, id) {
			acc.WriteString(s.tok.Decode([]int{id}))
		}
	}
	var p rollout.Policy = req.w.policy
	if p == nil {
		p = req.w.batch.Policy(ctx) // Complete's session is a row of the batch
	}
	comp, err := rollout.Complete(ctx, p, s.tok, req.prompt, cfg, rand.New(rand.NewSource(req.seed)))
	if err != nil {
		return comp, err
	}
	emit(comp.Text[sent:], nil)
	return comp, nil
}

// runeEnd lowers end, if need be, so that s[:end] does not end inside a
// rune that s completes later.
func runeEnd(s string, end int) int {
	for back := 1; back < utf8.UTFMax && end-back >= 0; back++ {
		if utf8.RuneStart(s[end-back]) {
			if !utf8.FullRuneInString(s[end-back : end]) {
				return end - back
			}
			break
		}
	}
	return end
}

// topLogprobs returns the k most likely tokens of logits with their
// log-probabilities under softmax(logits).
func topLogprobs(logits []float32, k int, tok *policy.Tokenizer) []openai.TopLogprob {
	m := math.Inf(-1)
	for _, x := range logits {
		m = max(m, float64(x))
	}
	z := 0.0
	for _, x := range logits {
		z += math.Exp(float64(x) - m)
	}
	idx := make([]int, len(logits))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return logits[idx[a]] > logits[idx[b]] })
	out := make([]openai.TopLogprob, 0, k)
	for _, id := range idx[:min(k, len(idx))] {
		text := tok.Decode([]int{id})
		out = append(out, openai.TopLogprob{Token: text, Logprob: float64(logits[id]) - m - math.Log(z), Bytes: byteList(text)})
	}
	return out
}

// byteList is s as OpenAI's logprobs write a token's bytes.
func byteList(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}

// tokenLogprobs is the logprobs entry of the tokens, stop tokens left out
// (their text is not part of the answer).
func (s *Server) tokenLogprobs(toks []sampled) []openai.TokenLogprob {
	stops := rollout.StopIDs(s.tok)
	var out []openai.TokenLogprob
	for _, t := range toks {
		if slices.Contains(stops, t.id) {
			continue
		}
		text := s.tok.Decode([]int{t.id})
		top := t.top
		if top == nil {
			top = []openai.TopLogprob{}
		}
		out = append(out, openai.TokenLogprob{Token: text, Logprob: float64(t.logp), Bytes: byteList(text), TopLogprobs: top})
	}
	return out
}

// samplingFields are the request fields the completion endpoints share.
type samplingFields struct {
	maxTokens   *int
	maxParam    string // the field maxTokens came from
	temperature *float64
	topP        *float64
	stop        json.RawMessage
	n           *int
}

// sampling checks the shared fields against the limits and the room the
// prompt leaves, and returns the completion settings and the number of
// choices. defaultMax (at most the server's -max-tokens) is the budget
// when the request sets none, cut to the room the prompt leaves; a
// budget the request sets past that room is refused with a 400 naming the
// context length, as OpenAI and vLLM answer.
func (s *Server) sampling(f samplingFields, promptLen, defaultMax int) (rollout.CompleteConfig, int, error) {
	room := s.context() - promptLen
	if room < 1 {
		return rollout.CompleteConfig{}, 0, badField("messages", "prompt has %d tokens; the model's context holds %d: send a shorter prompt", promptLen, s.context())
	}
	cfg := rollout.CompleteConfig{MaxTokens: defaultMax, Temperature: 1, TopP: 1}
	if lim := s.limits.MaxTokens; lim > 0 {
		cfg.MaxTokens = min(cfg.MaxTokens, lim)
	}
	if f.maxTokens != nil {
		cfg.MaxTokens = *f.maxTokens
		if cfg.MaxTokens < 1 {
			return cfg, 0, badField(f.maxParam, "%s must be >= 1, got %d", f.maxParam, cfg.MaxTokens)
		}
		if lim := s.limits.MaxTokens; lim > 0 && cfg.MaxTokens > lim {
			return cfg, 0, badField(f.maxParam, "%s is %d; this server allows at most %d", f.maxParam, cfg.MaxTokens, lim)
		}
		if cfg.MaxTokens > room {
			return cfg, 0, badField(f.maxParam, "this model's maximum context length is %d tokens; you requested %d tokens (%d in the prompt, %d in the completion): set %s to at most %d, or send a shorter prompt",
				s.context(), promptLen+cfg.MaxTokens, promptLen, cfg.MaxTokens, f.maxParam, room)
		}
	}
	cfg.MaxTokens = max(1, min(cfg.MaxTokens, room))
	if f.temperature != nil {
		if cfg.Temperature = *f.temperature; !(cfg.Temperature >= 0 && cfg.Temperature <= 100) {
			return cfg, 0, badField("temperature", "temperature must be in [0, 100], got %g", cfg.Temperature)
		}
	}
	if f.topP != nil {
		if cfg.TopP = *f.topP; !(cfg.TopP > 0 && cfg.TopP <= 1) {
			return cfg, 0, badField("top_p", "top_p must be in (0, 1], got %g", cfg.TopP)
		}
	}
	n := 1
	if f.n != nil {
		maxN := s.limits.MaxN
		if maxN <= 0 {
			maxN = 16
		}
		if n = *f.n; n < 1 || n > maxN {
			return cfg, 0, badField("n", "n must be in [1, %d], got %d", maxN, n)
		}
	}
	var err error
	if cfg.Stop, err = openai.ParseStop(f.stop); err != nil {
		return cfg, 0, badField("stop", "%v", err)
	}
	return cfg, n, nil
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
