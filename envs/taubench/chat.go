package taubench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultChatTimeout bounds one request of a ChatClient whose Timeout is 0.
const DefaultChatTimeout = 60 * time.Second

// ChatClient calls an OpenAI-compatible chat-completions endpoint (POST
// /v1/chat/completions) for a simulated user. Seed is sent with every
// request, so a server that honours it answers the same conversation the
// same way.
type ChatClient struct {
	// URL is the server's base address (http://host:port, with or
	// without /v1) or the full endpoint address.
	URL         string
	Model       string
	Temperature float64
	// MaxTokens, when > 0, bounds the reply's tokens (max_tokens).
	MaxTokens int
	Seed      int64
	// Timeout bounds one request; 0 means DefaultChatTimeout.
	Timeout time.Duration
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []ChatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Seed        int64         `json:"seed"`
}

type chatResponse struct {
	Choices []struct {
		Message ChatMessage `json:"message"`
	} `json:"choices"`
}

// Endpoint is the address requests go to.
func (c *ChatClient) Endpoint() string {
	u := strings.TrimRight(c.URL, "/")
	switch {
	case strings.HasSuffix(u, "/chat/completions"):
		return u
	case strings.HasSuffix(u, "/v1"):
		return u + "/chat/completions"
	}
	return u + "/v1/chat/completions"
}

// Chat implements ChatFunc: one request, the first choice's content.
func (c *ChatClient) Chat(ctx context.Context, messages []ChatMessage) (string, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultChatTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, err := json.Marshal(chatRequest{Model: c.Model, Messages: messages, Temperature: c.Temperature, MaxTokens: c.MaxTokens, Seed: c.Seed})
	if err != nil {
		return "", fmt.Errorf("taubench: user chat: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint(), bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("taubench: user chat: %w (check task.taubench.user.url)", err)
	}
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("taubench: user chat: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return "", fmt.Errorf("taubench: user chat: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("taubench: user chat: %s answered %s: %.200s", c.Endpoint(), resp.Status, raw)
	}
	var out chatResponse
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 {
		return "", fmt.Errorf("taubench: user chat: %s sent no choice (%.200s)", c.Endpoint(), raw)
	}
	return out.Choices[0].Message.Content, nil
}
