package taubench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

var _ rollout.ChatAdapter = agentChat{}

// ChatAdapter returns how the set's tasks go to a chat-completions server
// with native tool calls (artist eval -api chat), as tau-bench's
// tool-calling agent sends them: the domain's policy (wiki.md) as the
// system message, the customer's opening as the first user message, and
// the function schemas of tools.json as the tools; a call's arguments are
// its action's keyword arguments. An answer without calls is the agent's
// respond action: its content goes to the simulated user, whose reply is
// the next user message, so the tasks have no later turns of their own.
func (s *Set) ChatAdapter() rollout.ChatAdapter { return agentChat{s} }

type agentChat struct{ s *Set }

// Start implements rollout.ChatAdapter.
func (c agentChat) Start(_ context.Context, t envs.Task) ([]openai.ChatMessage, []openai.Tool, error) {
	if _, ok := c.s.tasks[t.ID]; !ok {
		return nil, nil, fmt.Errorf("taubench: no task %q in this set", t.ID)
	}
	tools, err := c.s.domain.ChatTools()
	if err != nil {
		return nil, nil, err
	}
	var msgs []openai.ChatMessage
	if wiki := strings.TrimSpace(c.s.domain.Wiki); wiki != "" {
		msgs = append(msgs, openai.ChatMessage{Role: "system", Content: openai.Text(wiki)})
	}
	msgs = append(msgs, openai.ChatMessage{Role: "user", Content: openai.Text(c.s.opening(t.ID))})
	return msgs, tools, nil
}

// Turn implements rollout.ChatAdapter. tau-bench tasks have no later
// turns of their own: the simulated user answers instead.
func (agentChat) Turn(t envs.Task, k int) (openai.ChatMessage, []openai.Tool, error) {
	return openai.ChatMessage{}, nil, errors.New("taubench: later user messages come from the simulated user: run with tool.kind taubench")
}

// Input implements rollout.ChatAdapter: the call as the JSON object a
// Session takes (ParseActions).
func (agentChat) Input(call openai.FunctionCall) (string, error) { return call.Object() }

// ChatTools returns the domain's tools (Tools, tools.json) as the tools
// of a chat-completions request, in their order.
func (d *Domain) ChatTools() ([]openai.Tool, error) {
	var tools []openai.Tool
	if err := json.Unmarshal(d.Tools, &tools); err != nil {
		return nil, fmt.Errorf("taubench: %s tools.json: %w", d.Name, err)
	}
	for i, t := range tools {
		if t.Type != "function" || t.Function.Name == "" {
			return nil, fmt.Errorf("taubench: %s tools.json: entry %d is not a named function schema", d.Name, i)
		}
	}
	return tools, nil
}
