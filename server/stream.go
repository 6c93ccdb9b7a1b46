package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/toolcall"
)

// chunkSink receives the chunks of one answer: a streaming request gets
// each as a server-sent event ("data: {...}\n\n", then "data: [DONE]\n\n"
// at the end); a non-streaming one has them collected, to be joined into
// one answer. So both are built by the same code. send is safe for the
// concurrent choices of one request.
type chunkSink[T any] struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	stream  bool
	started bool
	chunks  []T
	err     error // the client went away
}

func newChunkSink[T any](w http.ResponseWriter, stream bool) *chunkSink[T] {
	return &chunkSink[T]{w: w, stream: stream}
}

// send streams or keeps c; once a write failed it drops the rest.
func (k *chunkSink[T]) send(c T) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.stream {
		k.chunks = append(k.chunks, c)
		return
	}
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // the chunk types always marshal
	}
	k.event(b)
}

func (k *chunkSink[T]) event(data []byte) {
	if k.err != nil {
		return
	}
	if !k.started {
		h := k.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		k.started = true
	}
	if _, err := fmt.Fprintf(k.w, "data: %s\n\n", data); err != nil {
		k.err = err
		return
	}
	if f, ok := k.w.(http.Flusher); ok {
		f.Flush()
	}
}

// done ends a stream.
func (k *chunkSink[T]) done() error {
	k.event([]byte("[DONE]"))
	return nil
}

// end ends a stream: with stream_options.include_usage first the chunk
// last, which holds the usage and no choices, then [DONE].
func (k *chunkSink[T]) end(opts *openai.StreamOptions, last T) error {
	if opts != nil && opts.IncludeUsage {
		k.send(last)
	}
	return k.done()
}

// fail reports err: as the answer's status before a stream began, else as
// an error event that ends the stream.
func (k *chunkSink[T]) fail(err error) error {
	if !k.started {
		return err
	}
	b, _ := json.Marshal(openai.ErrorBody{Error: openai.ErrorDetail{Message: err.Error(), Type: "server_error", Code: http.StatusInternalServerError}})
	k.event(b)
	k.done()
	return nil
}

// chatChoice turns the pieces of one sampled choice into chat chunks: the
// role first, then content and tool-call deltas as the parser tells them,
// the tokens' log-probs and ids beside them when asked, and last the
// finish reason.
type chatChoice struct {
	s        *Server
	base     openai.ChatChunk
	index    int
	prefix   string // the start the answer was made to have, parsed as the model's
	tools    bool   // parse calls
	logprobs bool
	tokenIDs bool
	send     func(openai.ChatChunk)

	parser toolcall.Parser
	calls  int
}

// run samples the choice and returns the completion tokens it used.
func (c *chatChoice) run(ctx context.Context, req genRequest) (int, error) {
	c.chunk(openai.Delta{Role: "assistant", Content: openai.Ptr("")}, nil)
	c.piece(c.prefix, nil)
	comp, err := c.s.generate(ctx, req, c.piece)
	if err != nil {
		return 0, err
	}
	if c.tools {
		for _, e := range c.parser.End() {
			c.chunk(c.delta(e), nil)
		}
	}
	finish := "stop"
	switch {
	case comp.Length:
		finish = "length"
	case c.calls > 0:
		finish = "tool_calls"
	}
	last := c.base
	last.Choices = []openai.ChunkChoice{{Index: c.index, Delta: openai.Delta{}, FinishReason: &finish}}
	c.send(last)
	return len(comp.Tokens), nil
}

// piece handles text the generator made final and the tokens behind it.
func (c *chatChoice) piece(text string, toks []sampled) {
	var deltas []openai.Delta
	if !c.tools {
		if text != "" {
			deltas = append(deltas, openai.Delta{Content: openai.Ptr(text)})
		}
	} else {
		for _, e := range c.parser.Feed(text) {
			deltas = append(deltas, c.delta(e))
		}
	}
	if len(deltas) == 0 && len(toks) > 0 && (c.logprobs || c.tokenIDs) {
		deltas = append(deltas, openai.Delta{})
	}
	for i, d := range deltas {
		if i == 0 {
			c.chunk(d, toks)
		} else {
			c.chunk(d, nil)
		}
	}
}

// delta is the message delta of a parser event.
func (c *chatChoice) delta(e toolcall.Event) openai.Delta {
	switch e.Kind {
	case toolcall.Start:
		c.calls++
		id := fmt.Sprintf("call_%s_%d_%d", strings.TrimPrefix(c.base.ID, "chatcmpl-"), c.index, e.Index)
		return openai.Delta{ToolCalls: []openai.ToolCall{{Index: openai.Ptr(e.Index), ID: id, Type: "function", Function: openai.FunctionCall{Name: e.Name}}}}
	case toolcall.Args:
		return openai.Delta{ToolCalls: []openai.ToolCall{{Index: openai.Ptr(e.Index), Function: openai.FunctionCall{Arguments: e.Text}}}}
	}
	return openai.Delta{Content: openai.Ptr(e.Text)}
}

// chunk sends one delta with the tokens behind it.
func (c *chatChoice) chunk(d openai.Delta, toks []sampled) {
	ch := openai.ChunkChoice{Index: c.index, Delta: d}
	if c.logprobs && len(toks) > 0 {
		ch.Logprobs = &openai.ChatLogprobs{Content: c.s.tokenLogprobs(toks)}
	}
	if c.tokenIDs {
		for _, t := range toks {
			ch.TokenIDs, ch.TokenLogprobs = append(ch.TokenIDs, t.id), append(ch.TokenLogprobs, t.logp)
		}
	}
	out := c.base
	out.Choices = []openai.ChunkChoice{ch}
	c.send(out)
}

// joinChat joins the chunks of n choices into the choices of one answer:
// content and each call's arguments concatenated, content null when the
// model only called tools.
func joinChat(chunks []openai.ChatChunk, n int) []openai.ChatChoice {
	out := make([]openai.ChatChoice, n)
	content := make([]strings.Builder, n)
	for i := range out {
		out[i] = openai.ChatChoice{Index: i, Message: openai.AnswerMessage{Role: "assistant"}}
	}
	for _, ch := range chunks {
		for _, cc := range ch.Choices {
			o := &out[cc.Index]
			if d := cc.Delta; d.Content != nil {
				content[cc.Index].WriteString(*d.Content)
			}
			for _, tc := range cc.Delta.ToolCalls {
				if k := *tc.Index; k == len(o.Message.ToolCalls) {
					o.Message.ToolCalls = append(o.Message.ToolCalls, openai.ToolCall{ID: tc.ID, Type: tc.Type, Function: openai.FunctionCall{Name: tc.Function.Name}})
				}
				o.Message.ToolCalls[*tc.Index].Function.Arguments += tc.Function.Arguments
			}
			if cc.Logprobs != nil {
				if o.Logprobs == nil {
					o.Logprobs = &openai.ChatLogprobs{Content: []openai.TokenLogprob{}}
				}
				o.Logprobs.Content = append(o.Logprobs.Content, cc.Logprobs.Content...)
			}
			o.TokenIDs, o.TokenLogprobs = append(o.TokenIDs, cc.TokenIDs...), append(o.TokenLogprobs, cc.TokenLogprobs...)
			if cc.FinishReason != nil {
				o.FinishReason = *cc.FinishReason
			}
		}
	}
	for i := range out {
		if s := content[i].String(); s != "" || len(out[i].Message.ToolCalls) == 0 {
			out[i].Message.Content = &s
		}
		out[i].Message.ToolCalls = slices.Clip(out[i].Message.ToolCalls)
	}
	return out
}
