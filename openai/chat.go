package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Paths of the other endpoints artist serve answers.
const (
	ChatPath       = "/v1/chat/completions"
	ModelsPath     = "/v1/models"
	TokenizePath   = "/tokenize"
	DetokenizePath = "/detokenize"
)

// ChatRequest is the body of POST /v1/chat/completions. Pointer fields are
// absent when nil, so a server applies its defaults.
type ChatRequest struct {
	Model    string        `json:"model,omitempty"`
	Messages []ChatMessage `json:"messages"`
	// Tools are function schemas: {"type": "function", "function":
	// {"name", "description", "parameters"}}.
	Tools []Tool `json:"tools,omitempty"`
	// ToolChoice is "auto", "none", "required" or {"type": "function",
	// "function": {"name": ...}} (see ParseToolChoice).
	ToolChoice          json.RawMessage `json:"tool_choice,omitempty"`
	MaxTokens           *int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	Stop                json.RawMessage `json:"stop,omitempty"`
	Seed                *int64          `json:"seed,omitempty"`
	N                   *int            `json:"n,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *StreamOptions  `json:"stream_options,omitempty"`
	Logprobs            bool            `json:"logprobs,omitempty"`
	TopLogprobs         *int            `json:"top_logprobs,omitempty"`
	// ReturnTokenIDs is vLLM's extension: the answer carries the prompt's
	// and each choice's token ids.
	ReturnTokenIDs bool `json:"return_token_ids,omitempty"`
}

// StreamOptions asks a streaming server for a last chunk with the usage.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// ChatMessage is one message. Content is a string, null (an assistant
// message with tool calls) or a list of {"type": "text", "text"} parts
// (see MessageText).
type ChatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// Tool is one function a model may call.
type Tool struct {
	Type     string   `json:"type"` // "function"
	Function Function `json:"function"`
}

// Function is the schema of a function: Parameters is a JSON Schema
// object.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolCall is a call of an assistant message. Index is set in streamed
// deltas only.
type ToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names a function and its arguments, a string holding a
// JSON object (OpenAI's form).
type FunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// Object returns the call as one JSON object, {"name": …, "arguments":
// {…}}, with empty arguments as {}; arguments that are not a JSON object
// are an error naming the function.
func (c FunctionCall) Object() (string, error) {
	args := strings.TrimSpace(c.Arguments)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) || args[0] != '{' {
		return "", fmt.Errorf("arguments of %s are not a JSON object: %.200q", c.Name, c.Arguments)
	}
	name, _ := json.Marshal(c.Name)
	return `{"name": ` + string(name) + `, "arguments": ` + args + `}`, nil
}

// ChatCompletion is the answer to a non-streaming chat request.
type ChatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"` // "chat.completion"
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []ChatChoice `json:"choices"`
	Usage   Usage        `json:"usage"`
	// PromptTokenIDs is set when the request asked for return_token_ids.
	PromptTokenIDs []int `json:"prompt_token_ids,omitempty"`
	// WeightVersion names the weights that produced the answer.
	WeightVersion string `json:"weight_version,omitempty"`
}

// ChatChoice is one answer. FinishReason is "stop", "length" or
// "tool_calls" (the model called tools).
type ChatChoice struct {
	Index        int           `json:"index"`
	Message      AnswerMessage `json:"message"`
	FinishReason string        `json:"finish_reason"`
	Logprobs     *ChatLogprobs `json:"logprobs,omitempty"`
	// TokenIDs are the sampled tokens, a stop token included, and
	// TokenLogprobs their log-probabilities, when the request asked for
	// return_token_ids.
	TokenIDs      []int     `json:"token_ids,omitempty"`
	TokenLogprobs []float32 `json:"token_logprobs,omitempty"`
}

// AnswerMessage is the assistant message of a choice; Content is null
// when the model only called tools.
type AnswerMessage struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// ChatChunk is one server-sent event of a streaming chat answer.
type ChatChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"` // "chat.completion.chunk"
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []ChunkChoice `json:"choices"`
	// Usage is set on the last chunk when stream_options.include_usage.
	Usage          *Usage `json:"usage,omitempty"`
	PromptTokenIDs []int  `json:"prompt_token_ids,omitempty"`
	WeightVersion  string `json:"weight_version,omitempty"`
}

// ChunkChoice is the delta of one choice; FinishReason is set on its last
// chunk.
type ChunkChoice struct {
	Index        int           `json:"index"`
	Delta        Delta         `json:"delta"`
	FinishReason *string       `json:"finish_reason"`
	Logprobs     *ChatLogprobs `json:"logprobs,omitempty"`
	// TokenIDs and TokenLogprobs continue the choice's, as in ChatChoice.
	TokenIDs      []int     `json:"token_ids,omitempty"`
	TokenLogprobs []float32 `json:"token_logprobs,omitempty"`
}

// Delta is what a chunk adds to its choice's message.
type Delta struct {
	Role      string     `json:"role,omitempty"`
	Content   *string    `json:"content,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// ChatLogprobs are the log-probabilities of the sampled tokens.
type ChatLogprobs struct {
	Content []TokenLogprob `json:"content"`
}

// TokenLogprob is one sampled token, its log-probability and the most
// likely alternatives.
type TokenLogprob struct {
	Token       string       `json:"token"`
	Logprob     float64      `json:"logprob"`
	Bytes       []int        `json:"bytes"`
	TopLogprobs []TopLogprob `json:"top_logprobs"`
}

// TopLogprob is one alternative token.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

// ModelList is the answer of GET /v1/models.
type ModelList struct {
	Object string  `json:"object"` // "list"
	Data   []Model `json:"data"`
}

// Model describes one served model.
type Model struct {
	ID          string `json:"id"`
	Object      string `json:"object"` // "model"
	Created     int64  `json:"created"`
	OwnedBy     string `json:"owned_by"`
	MaxModelLen int    `json:"max_model_len,omitempty"`
}

// ToolChoice is a parsed tool_choice: Mode is "auto", "none" or
// "required"; Name is set for a named function (Mode "required").
type ToolChoice struct {
	Mode string
	Name string
}

// ParseToolChoice reads tool_choice: absent or null is "auto".
func ParseToolChoice(raw json.RawMessage) (ToolChoice, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return ToolChoice{Mode: "auto"}, nil
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		switch mode {
		case "auto", "none", "required":
			return ToolChoice{Mode: mode}, nil
		}
		return ToolChoice{}, fmt.Errorf("%q is not a tool_choice: want auto, none, required or a named function", mode)
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &named); err != nil || named.Type != "function" || named.Function.Name == "" {
		return ToolChoice{}, errors.New(`want "auto", "none", "required" or {"type": "function", "function": {"name": ...}}`)
	}
	return ToolChoice{Mode: "required", Name: named.Function.Name}, nil
}

// MessageText reads a message's content: a string, null (""), or a list
// of text parts, joined.
func MessageText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content must be a string, null or a list of text parts")
	}
	var b strings.Builder
	for i, p := range parts {
		if p.Type != "text" || p.Text == nil {
			return "", fmt.Errorf("content part %d: only {\"type\": \"text\", \"text\": ...} parts are supported", i)
		}
		b.WriteString(*p.Text)
	}
	return b.String(), nil
}
