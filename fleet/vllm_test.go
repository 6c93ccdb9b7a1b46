package fleet

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/openai"
)

// fakeVLLM answers as vLLM does with VLLM_SERVER_DEV_MODE=1: completions
// with token_ids and their log-probs under logprobs and no
// weight_version, /v1/models, /tokenize, and POST /collective_rpc, whose
// calls it counts by method; it has no /get_model_info and no
// /update_weights_from_disk. rpcStatus and rpcBody, when set, are its
// answer to /collective_rpc.
type fakeVLLM struct {
	*httptest.Server
	rpcStatus int
	rpcBody   string

	mu    sync.Mutex
	calls map[string]int // collective_rpc calls by method
	paths []string       // every path asked, in order
}

func newFakeVLLM(t *testing.T) *fakeVLLM {
	v := &fakeVLLM{calls: map[string]int{}}
	v.Server = httptest.NewServer(http.HandlerFunc(v.serve))
	t.Cleanup(v.Close)
	return v
}

func (v *fakeVLLM) serve(w http.ResponseWriter, r *http.Request) {
	v.mu.Lock()
	v.paths = append(v.paths, r.URL.Path)
	v.mu.Unlock()
	switch r.URL.Path {
	case openai.CompletionsPath:
		io.WriteString(w, `{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"ok","token_ids":[111,107],`+
			`"logprobs":{"tokens":["o","k"],"token_logprobs":[-1.0,-2.0]},"finish_reason":"length"}]}`)
	case "/v1/models":
		io.WriteString(w, `{"object":"list","data":[{"id":"/models/m","object":"model","root":"/models/m"}]}`)
	case openai.TokenizePath:
		json.NewEncoder(w).Encode(map[string]any{"count": 0, "tokens": byteTok{}.Encode(probeText)})
	case CollectiveRPCPath:
		var in struct {
			Method string `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		v.mu.Lock()
		v.calls[in.Method]++
		v.mu.Unlock()
		if v.rpcStatus != 0 {
			w.WriteHeader(v.rpcStatus)
			io.WriteString(w, v.rpcBody)
			return
		}
		io.WriteString(w, `{"results":[null]}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"detail":"Not Found"}`)
	}
}

func (v *fakeVLLM) reloads() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.calls["reload_weights"]
}

func (v *fakeVLLM) asked(path string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, p := range v.paths {
		if p == path {
			return true
		}
	}
	return false
}

// vllmFleet is a VLLMReload fleet of urls.
func vllmFleet(t *testing.T, urls ...string) *Fleet {
	t.Helper()
	f, err := New(urls, byteTok{})
	if err != nil {
		t.Fatal(err)
	}
	f.Sync = VLLMReload
	return f
}

// TestVLLMReload: each push calls reload_weights once on every server
// and checks no version; answers without weight_version are taken, and
// the tokenizer check asks neither /get_model_info nor for a digest.
func TestVLLMReload(t *testing.T) {
	a, b := newFakeVLLM(t), newFakeVLLM(t)
	f := vllmFleet(t, a.URL, b.URL)
	ctx := context.Background()
	if err := f.Check(ctx, ""); err != nil {
		t.Fatalf("Check: %v", err)
	}
	for i, version := range []string{"1", "2", "3"} {
		dropped, err := f.Push(ctx, "/models/m", version, "")
		if err != nil || len(dropped) > 0 {
			t.Fatalf("push %s: dropped %v, %v", version, dropped, err)
		}
		for j, s := range []*fakeVLLM{a, b} {
			if n := s.reloads(); n != i+1 {
				t.Errorf("after push %s: server %d reloaded %d times, want %d", version, j, n, i+1)
			}
		}
		c, err := f.Complete(ctx, seg)
		if err != nil || c.Text != "ok" || len(c.LogProbs) != 2 || c.LogProbs[1] != -2 {
			t.Fatalf("after push %s: Complete = %+v, %v; want vLLM's answer without weight_version taken", version, c, err)
		}
	}
	for i, s := range []*fakeVLLM{a, b} {
		for _, p := range []string{openai.ModelInfoPath, openai.UpdateWeightsPath} {
			if s.asked(p) {
				t.Errorf("server %d was asked %s, which vLLM does not serve", i, p)
			}
		}
	}
}

// TestVLLMReloadRefused: a server that refuses the reload (no dev mode, a
// failing worker, an error body) is an error naming it; one that does not
// answer is dropped while another is left, and the last one's loss is an
// error that says how to resume.
func TestVLLMReloadRefused(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"no dev mode", http.StatusNotFound, `{"detail":"Not Found"}`, "404 Not Found"},
		{"worker failed", http.StatusInternalServerError, `Internal Server Error`, "500 Internal Server Error"},
		{"error body", http.StatusOK, `{"error":{"message":"reload failed","type":"BadRequestError","code":400}}`, "reload failed"},
		{"old error body", http.StatusOK, `{"object":"error","message":"no such method","type":"BadRequestError","code":400}`, "no such method"},
		{"not JSON", http.StatusOK, `<html>proxy</html>`, "<html>proxy</html>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			good, bad := newFakeVLLM(t), newFakeVLLM(t)
			bad.rpcStatus, bad.rpcBody = c.status, c.body
			f := vllmFleet(t, good.URL, bad.URL)
			_, err := f.Push(context.Background(), "/models/m", "1", "")
			if err == nil || !strings.Contains(err.Error(), bad.URL) || !strings.Contains(err.Error(), "did not reload") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want a refusal naming %s and %q", err, bad.URL, c.want)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		live, gone := newFakeVLLM(t), newFakeVLLM(t)
		gone.Close()
		f := vllmFleet(t, gone.URL, live.URL)
		dropped, err := f.Push(context.Background(), "/models/m", "1", "")
		if err != nil || len(dropped) != 1 || dropped[0] != gone.URL || live.reloads() != 1 {
			t.Fatalf("dropped %v, err %v, live reloads %d: want %s dropped and the other reloaded", dropped, err, live.reloads(), gone.URL)
		}
		if _, err := f.Push(context.Background(), "/models/m", "2", ""); err != nil || live.reloads() != 2 {
			t.Fatalf("second push: %v, live reloads %d: want the dropped server left out", err, live.reloads())
		}
		live.Close()
		_, err = f.Push(context.Background(), "/models/m", "3", "")
		if err == nil || !strings.Contains(err.Error(), "no rollout server is left") || !strings.Contains(err.Error(), "VLLM_SERVER_DEV_MODE=1 vllm serve") {
			t.Fatalf("err = %v, want no server left and how to start them", err)
		}
	})
}

// TestSyncModes: the same vLLM server under the default UpdateFromDisk
// is refused as before (it has no /update_weights_from_disk), and a
// server that reported weight_version 1 must carry it in its answers,
// while under VLLMReload the answers need carry none.
func TestSyncModes(t *testing.T) {
	ctx := context.Background()
	v := newFakeVLLM(t)
	f, _ := New([]string{v.URL}, byteTok{})
	if _, err := f.Push(ctx, "/models/m", "1", ""); err == nil || !strings.Contains(err.Error(), "did not load") || v.reloads() != 0 {
		t.Errorf("UpdateFromDisk push to vLLM: err %v, %d reloads; want it refused without a reload", err, v.reloads())
	}
	if err := f.Check(ctx, "sha"); err == nil || !strings.Contains(err.Error(), openai.ModelInfoPath) {
		t.Errorf("UpdateFromDisk Check on vLLM: err %v, want /get_model_info asked and missing", err)
	}
	sg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case openai.UpdateWeightsPath:
			json.NewEncoder(w).Encode(openai.UpdateWeightsAnswer{Success: true})
		case openai.ModelInfoPath:
			json.NewEncoder(w).Encode(openai.ModelInfo{WeightVersion: "1"})
		default:
			v.serve(w, r) // answers without weight_version
		}
	}))
	defer sg.Close()
	g, _ := New([]string{sg.URL}, byteTok{})
	if _, err := g.Push(ctx, "/run/rollout-weights/step-000001", "1", "sha"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Complete(ctx, seg); err == nil || !strings.Contains(err.Error(), "weight_version") {
		t.Errorf("UpdateFromDisk: an answer without weight_version after push 1 gave err %v, want it refused", err)
	}
}
