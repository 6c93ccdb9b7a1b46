package atlass

import (
	"context"
	"errors"
	"fmt"

	"github.com/artist-rl/artist/openai"
)

// Chat answers a conversation with the next assistant message's text. It
// is what the analyzer, tool master, selector and generator phases talk
// to: a served model through ClientChat, or, inside a rollout, the policy
// itself behind an adapter of the trainer's. Reply must not keep msgs.
type Chat interface {
	Reply(ctx context.Context, msgs []openai.ChatMessage) (string, error)
}

// ClientChat is a Chat over an OpenAI-compatible chat-completions server.
type ClientChat struct {
	Client *openai.Client // the server; its retries and timeouts apply
	Model  string         // sent as the request's model
	// Temperature, MaxTokens and Seed are sent with every request; nil
	// leaves the server's default.
	Temperature *float64
	MaxTokens   *int
	Seed        *int64
}

var _ Chat = (*ClientChat)(nil)

// Reply implements Chat: the text of the first choice. An answer without
// text (only tool calls) is an error naming the finish reason.
func (c *ClientChat) Reply(ctx context.Context, msgs []openai.ChatMessage) (string, error) {
	if c.Client == nil {
		return "", errors.New("atlass: ClientChat.Client is nil: set the server's client")
	}
	req := openai.ChatRequest{Model: c.Model, Messages: msgs, Temperature: c.Temperature, MaxTokens: c.MaxTokens, Seed: c.Seed, N: openai.Ptr(1)}
	out, err := c.Client.Chat(ctx, req)
	if err != nil {
		return "", fmt.Errorf("atlass: chat: %w", err)
	}
	if len(out.Choices) == 0 {
		return "", errors.New("atlass: chat: the server answered with no choices")
	}
	ch := out.Choices[0]
	if ch.Message.Content == nil {
		return "", fmt.Errorf("atlass: chat: the answer has no text (finish reason %q)", ch.FinishReason)
	}
	return *ch.Message.Content, nil
}

// message builds a chat message of text content.
func message(role, text string) openai.ChatMessage {
	return openai.ChatMessage{Role: role, Content: openai.Text(text)}
}
