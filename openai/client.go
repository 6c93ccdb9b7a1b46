package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"strings"
	"time"
)

// Client sends completion and chat requests to one server. Each request gets its
// own deadline; a request answered 429 or 5xx, or lost to a connection
// error or its deadline, is sent again after a backoff that doubles (with
// jitter) up to Retries times. Any other failure (a 4xx answer, an
// unreadable body) is fatal and returned at once. The zero value is not
// usable: set URL. A Client is safe for concurrent use.
type Client struct {
	// URL is the server's base address (http://host:port, or with /v1)
	// or the full address of its completions endpoint (ending in
	// /completions) or chat endpoint (ending in /chat/completions).
	URL string
	// HTTP sends the requests; nil means a client of its own (never
	// http.DefaultClient, which has no timeout).
	HTTP *http.Client
	// Timeout bounds one request, answer included; 0 means 5 minutes
	// (long responses of large models take minutes).
	Timeout time.Duration
	// Retries is how many times a retryable failure is sent again; 0
	// means 4, negative none.
	Retries int
	// Backoff is the wait before the first retry; 0 means 500ms.
	Backoff time.Duration
	// APIKey, when set, is sent as "Authorization: Bearer APIKey".
	APIKey string
}

// Defaults of Client.
const (
	DefaultTimeout = 5 * time.Minute
	DefaultRetries = 4
	DefaultBackoff = 500 * time.Millisecond
)

var defaultHTTP = &http.Client{}

// maxBody bounds the answer a client reads.
const maxBody = 64 << 20

// Complete sends req to the completions endpoint and returns the
// server's answer. An error wraps the status and the start of the body
// when the server refused the request; errors.Is(err, ErrRetriesSpent)
// tells a server that kept failing.
func (c *Client) Complete(ctx context.Context, req CompletionRequest) (Completion, error) {
	var out Completion
	err := c.do(ctx, c.endpoint(), req, &out, func() bool { return len(out.Choices) > 0 })
	return out, err
}

// Chat sends req to the chat-completions endpoint (non-streaming: Stream
// is cleared) and returns the answer, with Complete's retries and errors.
func (c *Client) Chat(ctx context.Context, req ChatRequest) (ChatCompletion, error) {
	req.Stream = false
	var out ChatCompletion
	err := c.do(ctx, c.chatEndpoint(), req, &out, func() bool { return len(out.Choices) > 0 })
	return out, err
}

// do posts req to url with retries and decodes the answer into out; ok
// says whether the decoded answer is usable.
func (c *Client) do(ctx context.Context, url string, req any, out any, ok func() bool) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("openai: %w", err)
	}
	retries, wait := c.Retries, c.Backoff
	if retries == 0 {
		retries = DefaultRetries
	}
	if wait <= 0 {
		wait = DefaultBackoff
	}
	for attempt := 0; ; attempt++ {
		data, err := c.once(ctx, url, body)
		var re *retryable
		if err == nil {
			if json.Unmarshal(data, out) != nil || !ok() {
				return fmt.Errorf("openai: unreadable answer %q", data[:min(len(data), 300)])
			}
			return nil
		}
		if !errors.As(err, &re) || ctx.Err() != nil {
			return err
		}
		if attempt >= retries {
			return fmt.Errorf("openai: %w after %d attempts: %v", ErrRetriesSpent, attempt+1, re.err)
		}
		jitter := time.Duration(rand.Int63n(int64(wait)/2 + 1))
		select {
		case <-ctx.Done():
			return fmt.Errorf("openai: %w", ctx.Err())
		case <-time.After(wait + jitter):
		}
		wait *= 2
	}
}

// ErrRetriesSpent reports a request that failed each time it was sent.
var ErrRetriesSpent = errors.New("server kept failing")

// retryable marks a failure worth sending the request again for.
type retryable struct{ err error }

func (r *retryable) Error() string { return r.err.Error() }

// once sends the request one time under its own deadline and returns the
// body of a 200 answer.
func (c *Client) once(ctx context.Context, url string, body []byte) ([]byte, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	res, err := hc.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("openai: %w", ctx.Err())
		}
		return nil, &retryable{fmt.Errorf("openai: %w", err)}
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		if ctx.Err() == nil && (rctx.Err() != nil || isNetErr(err)) {
			return nil, &retryable{fmt.Errorf("openai: reading the answer: %w", err)}
		}
		return nil, fmt.Errorf("openai: reading the answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		err := fmt.Errorf("openai: %s: %s", res.Status, bytes.TrimSpace(data[:min(len(data), 300)]))
		if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 {
			return nil, &retryable{err}
		}
		return nil, err
	}
	return data, nil
}

func isNetErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF)
}

// endpoint is the completions address of URL.
func (c *Client) endpoint() string {
	url := strings.TrimSuffix(c.URL, "/")
	if strings.HasSuffix(url, "/completions") && !strings.HasSuffix(url, ChatPath) {
		return url
	}
	return c.base() + CompletionsPath
}

// chatEndpoint is the chat-completions address of URL.
func (c *Client) chatEndpoint() string {
	if url := strings.TrimSuffix(c.URL, "/"); strings.HasSuffix(url, "/chat/completions") {
		return url
	}
	return c.base() + ChatPath
}

// base is the server's address: URL without an endpoint path or a final
// /v1.
func (c *Client) base() string {
	url := strings.TrimSuffix(c.URL, "/")
	for _, p := range []string{ChatPath, CompletionsPath, "/v1"} {
		url = strings.TrimSuffix(url, p)
	}
	return url
}
