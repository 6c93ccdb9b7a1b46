package fleet

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// byteTok encodes each byte as its own id; 0 is EOS.
type byteTok struct{}

func (byteTok) Encode(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}
func (byteTok) Decode(ids []int) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return string(b)
}
func (byteTok) EOS() int { return 0 }

// fake answers completions with the tokens "ok" after release is closed
// (nil: at once), and /tokenize with tokens.
func fake(t *testing.T, release chan struct{}, seen chan string, tokens []int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case openai.CompletionsPath:
			if seen != nil {
				seen <- r.Host
			}
			if release != nil {
				<-release
			}
			json.NewEncoder(w).Encode(openai.Completion{Choices: []openai.Choice{{Text: "ok", TokenIDs: []int{'o', 'k'}, TokenLogprobs: []float32{-1, -2}, FinishReason: "length"}}})
		case openai.ModelInfoPath:
			json.NewEncoder(w).Encode(openai.ModelInfo{WeightVersion: "default"})
		case openai.TokenizePath:
			json.NewEncoder(w).Encode(map[string]any{"tokens": tokens})
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

var seg = rollout.SegmentRequest{Prompt: []int{'q'}, Seed: 1, Config: rollout.CompleteConfig{MaxTokens: 2, Temperature: 1, TopP: 1}}

// TestFewestOutstanding: requests in flight spread evenly over the servers.
func TestFewestOutstanding(t *testing.T) {
	release, seen := make(chan struct{}), make(chan string, 8)
	a, b := fake(t, release, seen, nil), fake(t, release, seen, nil)
	f, err := New([]string{a.URL, b.URL}, byteTok{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c, err := f.Complete(context.Background(), seg); err != nil || c.Text != "ok" || !c.Length {
				t.Errorf("Complete = %+v, %v", c, err)
			}
		}()
	}
	hosts := map[string]int{}
	for range 6 {
		hosts[<-seen]++
	}
	close(release)
	wg.Wait()
	for _, u := range []string{a.URL, b.URL} {
		if n := hosts[strings.TrimPrefix(u, "http://")]; n != 3 {
			t.Errorf("%s took %d of 6 requests in flight, want 3: %v", u, n, hosts)
		}
	}
}

// TestFailover: a server that drops connections loses its requests to
// the other and is passed over for a while; with none left the error
// names them all.
func TestFailover(t *testing.T) {
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Close()
	}))
	defer dead.Close()
	live := fake(t, nil, nil, nil)
	f, _ := New([]string{dead.URL, live.URL}, byteTok{})
	for range 3 {
		if _, err := f.Complete(context.Background(), seg); err != nil {
			t.Fatal(err)
		}
	}
	served, failed := f.Stats()
	if served[0] != 0 || failed[0] != 1 || served[1] != 3 {
		t.Errorf("served %v failed %v: want the dead server tried once, then passed over", served, failed)
	}
	g, _ := New([]string{dead.URL}, byteTok{})
	g.Rounds, g.Backoff = 2, time.Millisecond
	_, err := g.Complete(context.Background(), seg)
	if err == nil || !strings.Contains(err.Error(), dead.URL) || !strings.Contains(err.Error(), "failed 2 times") {
		t.Errorf("err = %v, want one naming %s after 2 rounds", err, dead.URL)
	}
}

// TestCheckProbe: a server without tokenizer digests is checked by
// encoding a probe text.
func TestCheckProbe(t *testing.T) {
	good := fake(t, nil, nil, byteTok{}.Encode(probeText))
	bad := fake(t, nil, nil, []int{1, 2, 3})
	f, _ := New([]string{good.URL}, byteTok{})
	if err := f.Check(context.Background(), "sha"); err != nil {
		t.Errorf("same tokenizer refused: %v", err)
	}
	g, _ := New([]string{good.URL, bad.URL}, byteTok{})
	if err := g.Check(context.Background(), "sha"); err == nil || !strings.Contains(err.Error(), bad.URL) || !strings.Contains(err.Error(), "another tokenizer") {
		t.Errorf("err = %v, want %s refused for another tokenizer", err, bad.URL)
	}
}

func TestNewRefuses(t *testing.T) {
	cases := []struct {
		urls []string
		want string
	}{
		{nil, "no servers"},
		{[]string{"127.0.0.1:8080"}, "not an http"},
		{[]string{"http://a:1", "http://a:1/"}, "listed twice"},
	}
	for i, c := range cases {
		if _, err := New(c.urls, byteTok{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: err = %v, want %q", i, err, c.want)
		}
	}
}
