package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// completions answers POST /v1/completions. A text prompt is encoded with
// the checkpoint's tokenizer, except for a prefix that is the text of a
// recent prompt and its completion: that prefix keeps the token ids the
// model saw and sampled, so a client that continues a completion
// (appending the stop string and a tool result) gets what a token-level
// rollout would. A prompt given as token ids is used as it is.
func (s *Server) completions(w http.ResponseWriter, r *http.Request) error {
	var in openai.CompletionRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := s.checkModel(in.Model); err != nil {
		return err
	}
	text, ids, err := s.completionPrompt(in.Prompt)
	if err != nil {
		return err
	}
	cfg, n, top, err := s.completionSampling(in, len(ids))
	if err != nil {
		return err
	}
	wt := s.current()
	base := openai.CompletionChunk{ID: fmt.Sprintf("cmpl-%d", s.nextID()), Object: "text_completion", Created: time.Now().Unix(), Model: s.name, WeightVersion: wt.version}
	out := newChunkSink[openai.CompletionChunk](w, in.Stream)
	seed := s.seedOf(in.Seed)
	usage, err := runChoices(r.Context(), len(ids), n, func(ctx context.Context, i int) (int, error) {
		c := completionChoice{s: s, base: base, index: i, text: text, logprobs: in.Logprobs != nil, tokenIDs: in.ReturnTokenIDs, send: out.send}
		return c.run(ctx, genRequest{prompt: ids, cfg: cfg, seed: seed + int64(i), top: top, w: wt})
	})
	if err != nil {
		return out.fail(err)
	}
	if in.Stream {
		last := base
		last.Choices, last.Usage = []openai.StreamChoice{}, &usage
		return out.end(in.StreamOptions, last)
	}
	answer := openai.Completion{ID: base.ID, Object: base.Object, Created: base.Created, Model: s.name, Choices: joinCompletions(out.chunks, n), Usage: usage, WeightVersion: wt.version}
	if in.ReturnTokenIDs {
		answer.PromptTokenIDs = ids
	}
	writeJSON(w, answer)
	return nil
}

// runChoices runs the n choices of a request on a prompt of prompt
// tokens at once (eachChoice), each returning the completion tokens it
// used, and returns the request's usage or the first error.
func runChoices(ctx context.Context, prompt, n int, choice func(ctx context.Context, i int) (int, error)) (openai.Usage, error) {
	used := make([]int, n)
	err := eachChoice(ctx, n, func(ctx context.Context, i int) error {
		var err error
		used[i], err = choice(ctx, i)
		return err
	})
	if err != nil {
		return openai.Usage{}, err
	}
	u := openai.Usage{PromptTokens: prompt}
	for _, k := range used {
		u.CompletionTokens += k
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u, nil
}

// completionSampling checks a completion request's sampling fields for a
// prompt of promptLen tokens (errors name "prompt" where the chat
// endpoint's would name "messages") and its logprobs, the number of
// alternatives per token in [0, 20].
func (s *Server) completionSampling(in openai.CompletionRequest, promptLen int) (cfg rollout.CompleteConfig, n, top int, err error) {
	cfg, n, err = s.sampling(samplingFields{maxTokens: in.MaxTokens, maxParam: "max_tokens", temperature: in.Temperature, topP: in.TopP, stop: in.Stop, n: in.N}, promptLen, 16)
	if err != nil {
		if ae, ok := err.(*apiError); ok && ae.param == "messages" {
			ae.param = "prompt"
		}
		return cfg, 0, 0, err
	}
	if in.Logprobs != nil {
		if top = *in.Logprobs; top < 0 || top > 20 {
			return cfg, 0, 0, badField("logprobs", "logprobs must be in [0, 20], got %d", top)
		}
	}
	return cfg, n, top, nil
}

// completionChoice streams one choice of a completion request.
type completionChoice struct {
	s        *Server
	base     openai.CompletionChunk
	index    int
	text     string // the prompt's text, "" for token ids: the answer is cached after it
	logprobs bool
	tokenIDs bool
	send     func(openai.CompletionChunk)

	offset int // the text offset of the next legacy logprob
}

// run samples the choice and returns the completion tokens it used.
func (c *completionChoice) run(ctx context.Context, req genRequest) (int, error) {
	comp, err := c.s.generate(ctx, req, c.emit)
	if err != nil {
		return 0, err
	}
	if c.text != "" {
		c.s.cache.put(c.text+c.s.tok.Decode(comp.Tokens), append(req.prompt[:len(req.prompt):len(req.prompt)], comp.Tokens...))
	}
	c.chunk(finishChoice(comp))
	return len(comp.Tokens), nil
}

// emit sends a piece of text with its tokens' logprobs and ids, as the
// request asked; an empty piece with neither is not sent.
func (c *completionChoice) emit(piece string, toks []sampled) {
	sc := openai.StreamChoice{Text: piece}
	if c.logprobs && len(toks) > 0 {
		sc.Logprobs = c.s.legacyLogprobs(toks, &c.offset)
	}
	if c.tokenIDs {
		for _, t := range toks {
			sc.TokenIDs, sc.TokenLogprobs = append(sc.TokenIDs, t.id), append(sc.TokenLogprobs, t.logp)
		}
	}
	if piece != "" || sc.Logprobs != nil || sc.TokenIDs != nil {
		c.chunk(sc)
	}
}

// chunk sends sc as the choice's next chunk.
func (c *completionChoice) chunk(sc openai.StreamChoice) {
	ch := c.base
	sc.Index = c.index
	ch.Choices = []openai.StreamChoice{sc}
	c.send(ch)
}

// finishChoice is the last chunk of a choice: the finish reason and, as
// vLLM's stop_reason, the stop string that ended it (null otherwise).
func finishChoice(comp rollout.Completion) openai.StreamChoice {
	finish := "stop"
	if comp.Length {
		finish = "length"
	}
	c := openai.StreamChoice{FinishReason: &finish, StopReason: json.RawMessage("null")}
	if comp.Stop != "" {
		c.StopReason = openai.Text(comp.Stop)
	}
	return c
}

// completionPrompt reads a prompt: a non-empty string, a list of token
// ids, or a list holding one of them. text is "" for token ids.
func (s *Server) completionPrompt(raw json.RawMessage) (text string, ids []int, err error) {
	var one []json.RawMessage
	if json.Unmarshal(raw, &one) == nil && len(one) == 1 && len(raw) > 0 && (one[0][0] == '"' || one[0][0] == '[') {
		raw = one[0]
	}
	if json.Unmarshal(raw, &text) == nil {
		if text == "" {
			return "", nil, badField("prompt", "prompt is empty")
		}
		return text, s.cache.encode(text, s.tok), nil
	}
	if json.Unmarshal(raw, &ids) != nil || len(ids) == 0 {
		return "", nil, badField("prompt", "prompt must be a non-empty string or list of token ids (one prompt per request)")
	}
	for i, id := range ids {
		if id < 0 || id >= s.tok.VocabSize() {
			return "", nil, badField("prompt", "prompt[%d] = %d is not a token id: the vocabulary has %d", i, id, s.tok.VocabSize())
		}
	}
	return "", ids, nil
}

// legacyLogprobs is the completions logprobs entry of toks; offset is the
// text offset of the first, advanced past them.
func (s *Server) legacyLogprobs(toks []sampled, offset *int) *openai.Logprobs {
	lp := &openai.Logprobs{Tokens: []string{}, TokenLogprobs: []float64{}, TopLogprobs: []map[string]float64{}, TextOffset: []int{}}
	for _, t := range s.tokenLogprobs(toks) {
		top := map[string]float64{}
		for _, a := range t.TopLogprobs {
			top[a.Token] = a.Logprob
		}
		lp.Tokens, lp.TokenLogprobs = append(lp.Tokens, t.Token), append(lp.TokenLogprobs, t.Logprob)
		lp.TopLogprobs, lp.TextOffset = append(lp.TopLogprobs, top), append(lp.TextOffset, *offset)
		*offset += len(t.Token)
	}
	return lp
}

// joinCompletions joins the chunks of n completions into their choices.
func joinCompletions(chunks []openai.CompletionChunk, n int) []openai.Choice {
	out := make([]openai.Choice, n)
	for i := range out {
		out[i].Index = i
	}
	for _, ch := range chunks {
		for _, c := range ch.Choices {
			o := &out[c.Index]
			o.Text += c.Text
			if c.Logprobs != nil {
				if o.Logprobs == nil {
					o.Logprobs = &openai.Logprobs{Tokens: []string{}, TokenLogprobs: []float64{}, TopLogprobs: []map[string]float64{}, TextOffset: []int{}}
				}
				o.Logprobs.Tokens = append(o.Logprobs.Tokens, c.Logprobs.Tokens...)
				o.Logprobs.TokenLogprobs = append(o.Logprobs.TokenLogprobs, c.Logprobs.TokenLogprobs...)
				o.Logprobs.TopLogprobs = append(o.Logprobs.TopLogprobs, c.Logprobs.TopLogprobs...)
				o.Logprobs.TextOffset = append(o.Logprobs.TextOffset, c.Logprobs.TextOffset...)
			}
			o.TokenIDs, o.TokenLogprobs = append(o.TokenIDs, c.TokenIDs...), append(o.TokenLogprobs, c.TokenLogprobs...)
			if c.FinishReason != nil {
				o.FinishReason, o.StopReason = *c.FinishReason, c.StopReason
			}
		}
	}
	return out
}
