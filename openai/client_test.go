package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// flaky answers the first fails requests with status, then completes.
func flaky(t *testing.T, fails int, status int, hits *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		if r.URL.Path != CompletionsPath {
			http.NotFound(w, r)
			return
		}
		if int(n) <= fails {
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(ErrorBody{Error: ErrorDetail{Message: "busy", Code: status}})
			return
		}
		json.NewEncoder(w).Encode(Completion{Choices: []Choice{{Text: "ok", FinishReason: "stop"}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientRetries(t *testing.T) {
	cases := []struct {
		name          string
		fails, status int
		retries       int
		wantHits      int32
		wantErr       string // empty: success
	}{
		{"success", 0, 0, 2, 1, ""},
		{"429 then success", 1, http.StatusTooManyRequests, 2, 2, ""},
		{"503 twice then success", 2, http.StatusServiceUnavailable, 2, 3, ""},
		{"503 past the retries", 5, http.StatusServiceUnavailable, 2, 3, "kept failing"},
		{"400 is fatal at once", 5, http.StatusBadRequest, 2, 1, "400"},
		{"no retries", 5, http.StatusInternalServerError, -1, 1, "kept failing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := flaky(t, c.fails, c.status, &hits)
			cl := &Client{URL: srv.URL, Retries: c.retries, Backoff: time.Millisecond}
			out, err := cl.Complete(context.Background(), CompletionRequest{Prompt: Text("q")})
			switch {
			case c.wantErr == "" && (err != nil || out.Choices[0].Text != "ok"):
				t.Errorf("got %+v, %v; want the completion", out, err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("error %v, want one mentioning %q", err, c.wantErr)
			}
			if got := hits.Load(); got != c.wantHits {
				t.Errorf("%d requests, want %d", got, c.wantHits)
			}
		})
	}
}

// TestClientTimeout: a request past its deadline is retried, then
// reported; the caller's context ends the retries at once.
func TestClientTimeout(t *testing.T) {
	block := make(chan struct{})
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	cl := &Client{URL: srv.URL, Timeout: 20 * time.Millisecond, Retries: 1, Backoff: time.Millisecond}
	_, err := cl.Complete(context.Background(), CompletionRequest{Prompt: Text("q")})
	if !errors.Is(err, ErrRetriesSpent) || hits.Load() != 2 {
		t.Errorf("error %v after %d requests, want retries spent after 2", err, hits.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cl.Complete(ctx, CompletionRequest{Prompt: Text("q")}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: %v", err)
	}
}

func TestParseStop(t *testing.T) {
	cases := []struct {
		raw  string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"null", nil, false},
		{`"</code>"`, []string{"</code>"}, false},
		{`["a", "b"]`, []string{"a", "b"}, false},
		{"3", nil, true},
	}
	for _, c := range cases {
		got, err := ParseStop(json.RawMessage(c.raw))
		if (err != nil) != c.err || strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("ParseStop(%q) = %q, %v", c.raw, got, err)
		}
	}
}
