package rollout

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// TestRemoteStopsAtFirstFatalError: a refused request ends Run with its
// error, and no trajectory starts after it.
func TestRemoteStopsAtFirstFatalError(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, `{"error": {"message": "bad model", "code": 400}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	tasks := make([]envs.Task, 20)
	for i := range tasks {
		tasks[i] = envs.Task{ID: "t", Prompt: "q"}
	}
	cfg := DefaultConfig()
	cfg.Temperature = 0
	r := &Remote{URL: srv.URL, Tool: envs.Disabled{}, Format: format.DefaultFormat(), Config: cfg, Parallel: 2}
	_, _, err := r.Run(context.Background(), tasks, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("error %v, want the server's 400", err)
	}
	if n := hits.Load(); n > 2 {
		t.Errorf("%d requests after a fatal error, want at most the 2 in flight", n)
	}
}
