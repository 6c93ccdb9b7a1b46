// Package openai holds the wire format of the OpenAI-compatible API,
// written once for the server (artist serve) and every client
// (rollout.Remote, rollout.RemoteChat): completions (POST /v1/completions,
// with vLLM's stop_reason), chat completions with tools (POST
// /v1/chat/completions), their streamed chunks, the model list, the error
// object, and vLLM's token-in/token-out extensions (a prompt of token ids,
// return_token_ids). Client sends completion and chat requests with
// per-request timeouts, retries and an API key.
package openai

import (
	"encoding/json"
	"errors"
)

// CompletionsPath is the endpoint of text completions.
const CompletionsPath = "/v1/completions"

// CompletionRequest is the body of POST /v1/completions. Pointer fields
// are absent when nil, so a server applies its defaults (OpenAI's: 16
// tokens, temperature 1, top_p 1, n 1).
type CompletionRequest struct {
	Model string `json:"model,omitempty"`
	// Prompt is a JSON string (see Text), or a list of token ids (see
	// TokenIDs; artist serve and vLLM take them); servers may reject other
	// forms.
	Prompt      json.RawMessage `json:"prompt"`
	MaxTokens   *int            `json:"max_tokens,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	TopP        *float64        `json:"top_p,omitempty"`
	// Stop is a string, a list of strings or null (see ParseStop, Stops).
	Stop json.RawMessage `json:"stop,omitempty"`
	Seed *int64          `json:"seed,omitempty"`
	N    *int            `json:"n,omitempty"`
	// Stream asks for server-sent CompletionChunk events.
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
	// Logprobs asks for the log-probabilities of the sampled tokens and of
	// that many alternatives at each (0: none of them).
	Logprobs *int `json:"logprobs,omitempty"`
	// ReturnTokenIDs is vLLM's extension: the answer carries the prompt's
	// and each choice's token ids.
	ReturnTokenIDs bool `json:"return_token_ids,omitempty"`
}

// Completion is the answer to a completion request.
type Completion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   Usage    `json:"usage"`
	// PromptTokenIDs is set when the request asked for return_token_ids.
	PromptTokenIDs []int `json:"prompt_token_ids,omitempty"`
	// WeightVersion names the weights that produced the answer (SGLang's
	// weight_version, set by POST /update_weights_from_disk).
	WeightVersion string `json:"weight_version,omitempty"`
}

// Choice is one completion. FinishReason is "stop" (a stop string or the
// end-of-sequence token) or "length" (max_tokens). StopReason is vLLM's
// extension: the stop string matched, or null or a token id when the
// end-of-sequence token ended the text.
type Choice struct {
	Index        int             `json:"index"`
	Text         string          `json:"text"`
	FinishReason string          `json:"finish_reason"`
	StopReason   json.RawMessage `json:"stop_reason"`
	Logprobs     *Logprobs       `json:"logprobs,omitempty"`
	// TokenIDs and TokenLogprobs are the sampled tokens (a stop token
	// included) and their log-probabilities, when asked for with
	// return_token_ids.
	TokenIDs      []int     `json:"token_ids,omitempty"`
	TokenLogprobs []float32 `json:"token_logprobs,omitempty"`
}

// Logprobs are the legacy completions log-probabilities: one entry per
// sampled token in each list.
type Logprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []float64            `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}

// CompletionChunk is one server-sent event of a streaming completion.
type CompletionChunk struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"` // "text_completion"
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []StreamChoice `json:"choices"`
	// Usage is set on the last chunk when stream_options.include_usage.
	Usage         *Usage `json:"usage,omitempty"`
	WeightVersion string `json:"weight_version,omitempty"`
}

// StreamChoice is the next piece of one completion; FinishReason is set on
// its last chunk.
type StreamChoice struct {
	Index         int             `json:"index"`
	Text          string          `json:"text"`
	FinishReason  *string         `json:"finish_reason"`
	StopReason    json.RawMessage `json:"stop_reason,omitempty"`
	Logprobs      *Logprobs       `json:"logprobs,omitempty"`
	TokenIDs      []int           `json:"token_ids,omitempty"`
	TokenLogprobs []float32       `json:"token_logprobs,omitempty"`
}

// Usage counts the tokens of a request.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// ErrorBody is the body of an error answer:
// {"error": {"message", "type", "param", "code"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail describes what was wrong with a request.
type ErrorDetail struct {
	Message string `json:"message"`
	Type    string `json:"type,omitempty"`
	Param   string `json:"param,omitempty"`
	Code    int    `json:"code"`
}

// Text encodes s as a JSON string, for CompletionRequest.Prompt.
func Text(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// TokenIDs encodes a prompt given as token ids.
func TokenIDs(ids []int) json.RawMessage {
	b, _ := json.Marshal(ids)
	return b
}

// Stops encodes stop strings for CompletionRequest.Stop (absent when
// there are none).
func Stops(stops []string) json.RawMessage {
	if len(stops) == 0 {
		return nil
	}
	b, _ := json.Marshal(stops)
	return b
}

// ParseStop reads CompletionRequest.Stop: absent or null is none, a
// string is one stop string, a list of strings is several.
func ParseStop(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("stop must be a string or a list of strings")
	}
	return many, nil
}

// StopString returns the stop string the choice names (vLLM's
// stop_reason), with ok false when it names none: absent, null, empty or
// a token id (the end-of-sequence token stopped it).
func (c Choice) StopString() (s string, ok bool) {
	err := json.Unmarshal(c.StopReason, &s)
	return s, err == nil && s != ""
}

// StoppedByToken reports whether stop_reason is present and names no
// string: null or a token id, the end-of-sequence token.
func (c Choice) StoppedByToken() bool {
	_, named := c.StopString()
	return len(c.StopReason) > 0 && !named
}

// Ptr returns a pointer to v, for the optional request fields.
func Ptr[T any](v T) *T { return &v }
