package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/toolcall"
)

// chatPrompt is a chat request rendered for the model.
type chatPrompt struct {
	text   string // the rendered conversation, then prefix
	prefix string // what the answer is made to start with (tool_choice)
	tools  bool   // calls are parsed out of the answer
}

// chat answers POST /v1/chat/completions: the conversation is rendered
// with the checkpoint's chat template (tools included), and calls in the
// model's own format are parsed out of each answer (toolcall), streamed
// as they arrive when the request streams.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) error {
	var in openai.ChatRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := s.checkModel(in.Model); err != nil {
		return err
	}
	p, err := s.renderChat(in)
	if err != nil {
		return err
	}
	ids := s.tok.Encode(p.text)
	f := samplingFields{maxTokens: in.MaxTokens, maxParam: "max_tokens", temperature: in.Temperature, topP: in.TopP, stop: in.Stop, n: in.N}
	if in.MaxCompletionTokens != nil {
		f.maxTokens, f.maxParam = in.MaxCompletionTokens, "max_completion_tokens"
	}
	cfg, n, err := s.sampling(f, len(ids), s.context())
	if err != nil {
		return err
	}
	top := 0
	if in.TopLogprobs != nil {
		if top = *in.TopLogprobs; top < 0 || top > 20 || !in.Logprobs {
			return badField("top_logprobs", "top_logprobs must be in [0, 20], with logprobs: true")
		}
	}
	id := s.nextID()
	wt := s.current()
	base := openai.ChatChunk{ID: fmt.Sprintf("chatcmpl-%d", id), Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: s.name, WeightVersion: wt.version}
	out := newChunkSink[openai.ChatChunk](w, in.Stream)
	seed := s.seedOf(in.Seed)
	usage, err := runChoices(r.Context(), len(ids), n, func(ctx context.Context, i int) (int, error) {
		c := chatChoice{s: s, base: base, index: i, prefix: p.prefix, tools: p.tools, logprobs: in.Logprobs, tokenIDs: in.ReturnTokenIDs, send: out.send}
		return c.run(ctx, genRequest{prompt: ids, cfg: cfg, seed: seed + int64(i), top: top, w: wt})
	})
	if err != nil {
		return out.fail(err)
	}
	if in.Stream {
		last := base
		last.Choices, last.Usage = []openai.ChunkChoice{}, &usage
		return out.end(in.StreamOptions, last)
	}
	answer := openai.ChatCompletion{ID: base.ID, Object: "chat.completion", Created: base.Created, Model: s.name,
		Choices: joinChat(out.chunks, n), Usage: usage, WeightVersion: wt.version}
	if in.ReturnTokenIDs {
		answer.PromptTokenIDs = ids
	}
	writeJSON(w, answer)
	return nil
}

// renderChat checks a chat request's messages and tools and renders them.
// tool_choice "none" renders no tools and parses no calls; "required"
// makes the answer start a call, a named function makes it start a call
// of that function.
func (s *Server) renderChat(in openai.ChatRequest) (chatPrompt, error) {
	msgs, err := chatMessages(in.Messages)
	if err != nil {
		return chatPrompt{}, err
	}
	choice, err := openai.ParseToolChoice(in.ToolChoice)
	if err != nil {
		return chatPrompt{}, badField("tool_choice", "%v", err)
	}
	tools, names, err := chatTools(in.Tools)
	if err != nil {
		return chatPrompt{}, err
	}
	var p chatPrompt
	switch {
	case choice.Mode == "none":
		tools = nil
	case choice.Name != "" && len(tools) == 0:
		return chatPrompt{}, badField("tool_choice", "tool_choice names the function %q, but the request has no tools: send the function in tools, or drop tool_choice", choice.Name)
	case choice.Mode == "required" && len(tools) == 0:
		return chatPrompt{}, badField("tool_choice", "tool_choice \"required\" needs tools: send tools, or use tool_choice \"auto\"")
	case choice.Name != "":
		if !names[choice.Name] {
			return chatPrompt{}, badField("tool_choice", "tool_choice names %q, which is not among the tools", choice.Name)
		}
		name, _ := json.Marshal(choice.Name)
		p.prefix = toolcall.Open + "\n{\"name\": " + string(name) + ", \"arguments\": "
	case choice.Mode == "required":
		p.prefix = toolcall.Open + "\n"
	}
	p.tools = len(tools) > 0
	text, err := s.template().Render(msgs, chat.Options{Tools: tools, AddGenerationPrompt: true})
	if err != nil {
		return chatPrompt{}, badField("messages", "%s", strings.TrimPrefix(err.Error(), "chat: "))
	}
	p.text = text + p.prefix
	return p, nil
}

// chatMessages converts the request's messages for the template. Tool
// call arguments that are a JSON object are passed as one (the template
// sees a dict, as vLLM passes them), others as the string sent.
func chatMessages(in []openai.ChatMessage) ([]chat.Message, error) {
	if len(in) == 0 {
		return nil, badField("messages", "messages is empty: send at least one message")
	}
	out := make([]chat.Message, len(in))
	for i, m := range in {
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return nil, badField(fmt.Sprintf("messages[%d].role", i), "role %q: want system, user, assistant or tool", m.Role)
		}
		text, err := openai.MessageText(m.Content)
		if err != nil {
			return nil, badField(fmt.Sprintf("messages[%d].content", i), "%v", err)
		}
		role := m.Role
		if role == "developer" {
			role = "system"
		}
		cm := chat.Message{Role: role, Content: text, Name: m.Name, ToolCallID: m.ToolCallID}
		for j, tc := range m.ToolCalls {
			if tc.Function.Name == "" {
				return nil, badField(fmt.Sprintf("messages[%d].tool_calls[%d].function.name", i, j), "a tool call needs a function name")
			}
			args := json.RawMessage(strings.TrimSpace(tc.Function.Arguments))
			switch {
			case len(args) == 0:
				args = json.RawMessage("{}")
			case args[0] != '{' || !json.Valid(args):
				args, _ = json.Marshal(tc.Function.Arguments)
			}
			cm.ToolCalls = append(cm.ToolCalls, chat.ToolCall{ID: tc.ID, Type: "function", Function: chat.FunctionCall{Name: tc.Function.Name, Arguments: args}})
		}
		out[i] = cm
	}
	return out, nil
}

// chatTools checks the tools and encodes them for the template; names
// holds the functions' names.
func chatTools(in []openai.Tool) ([]json.RawMessage, map[string]bool, error) {
	var out []json.RawMessage
	names := map[string]bool{}
	for i, t := range in {
		if t.Type != "function" && t.Type != "" {
			return nil, nil, badField(fmt.Sprintf("tools[%d].type", i), "tool type %q: only \"function\" tools are supported", t.Type)
		}
		if t.Function.Name == "" {
			return nil, nil, badField(fmt.Sprintf("tools[%d].function.name", i), "a tool needs a function name")
		}
		if p := strings.TrimSpace(string(t.Function.Parameters)); p != "" && p != "null" && p[0] != '{' {
			return nil, nil, badField(fmt.Sprintf("tools[%d].function.parameters", i), "parameters must be a JSON Schema object")
		}
		t.Type = "function"
		raw, err := json.Marshal(t)
		if err != nil {
			return nil, nil, badField(fmt.Sprintf("tools[%d]", i), "%v", err)
		}
		out = append(out, raw)
		names[t.Function.Name] = true
	}
	return out, names, nil
}
