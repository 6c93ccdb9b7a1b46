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

// Client sends completion requests to one server. Each request gets its
// own deadline; a request answered 429 or 5xx, or lost to a connection
// error or its deadline, is sent again after a backoff that doubles (with
// jitter) up to Retries times. Any other failure (a 4xx answer, an
// unreadable body) is fatal and returned at once. The zero value is not
// usable: set URL. A Client is safe for concurrent use.
type Client struct {
	// URL is the server's base address (http://host:port) or the full
	// address of its completions endpoint (ending in /completions).
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

// Complete sends req and returns the server's answer. An error wraps the
// status and the start of the body when the server refused the request;
// errors.Is(err, ErrRetriesSpent) tells a server that kept failing.
func (c *Client) Complete(ctx context.Context, req CompletionRequest) (Completion, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Completion{}, fmt.Errorf("openai: %w", err)
	}
	retries, wait := c.Retries, c.Backoff
	if retries == 0 {
		retries = DefaultRetries
	}
	if wait <= 0 {
		wait = DefaultBackoff
	}
	for attempt := 0; ; attempt++ {
		out, err := c.once(ctx, body)
		var re *retryable
		if err == nil || !errors.As(err, &re) || ctx.Err() != nil {
			return out, err
		}
		if attempt >= retries {
			return Completion{}, fmt.Errorf("openai: %w after %d attempts: %v", ErrRetriesSpent, attempt+1, re.err)
		}
		jitter := time.Duration(rand.Int63n(int64(wait)/2 + 1))
		select {
		case <-ctx.Done():
			return Completion{}, fmt.Errorf("openai: %w", ctx.Err())
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

// once sends the request one time under its own deadline.
func (c *Client) once(ctx context.Context, body []byte) (Completion, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(rctx, http.MethodPost, c.endpoint(), bytes.NewReader(body))
	if err != nil {
		return Completion{}, fmt.Errorf("openai: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	res, err := hc.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return Completion{}, fmt.Errorf("openai: %w", ctx.Err())
		}
		return Completion{}, &retryable{fmt.Errorf("openai: %w", err)}
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		if ctx.Err() == nil && (rctx.Err() != nil || isNetErr(err)) {
			return Completion{}, &retryable{fmt.Errorf("openai: reading the answer: %w", err)}
		}
		return Completion{}, fmt.Errorf("openai: reading the answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		err := fmt.Errorf("openai: %s: %s", res.Status, bytes.TrimSpace(data[:min(len(data), 300)]))
		if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 {
			return Completion{}, &retryable{err}
		}
		return Completion{}, err
	}
	var out Completion
	if err := json.Unmarshal(data, &out); err != nil || len(out.Choices) == 0 {
		return Completion{}, fmt.Errorf("openai: unreadable answer %q", data[:min(len(data), 300)])
	}
	return out, nil
}

func isNetErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF)
}

// endpoint is the completions address of URL.
func (c *Client) endpoint() string {
	url := strings.TrimSuffix(c.URL, "/")
	if !strings.HasSuffix(url, "/completions") {
		url += CompletionsPath
	}
	return url
}
