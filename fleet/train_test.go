package fleet_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	_ "github.com/artist-rl/artist/envs/builtin" // the default task
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/server"
	"github.com/artist-rl/artist/trainer"
)

// train runs testdata/tiny.yaml in dir with the overrides.
func train(dir string, sets ...string) error {
	cfg, err := trainer.Load(filepath.Join("testdata", "tiny.yaml"), append([]string{"run_dir=" + dir}, sets...))
	if err != nil {
		return err
	}
	_, err = trainer.Train(context.Background(), cfg, io.Discard)
	return err
}

// reference is the in-process run that the runs on servers must repeat:
// the batched engine samples each trajectory from the stream a server
// samples it from (rollout.Streams).
var reference struct {
	once sync.Once
	dir  string
	err  error
}

func referenceRun(t *testing.T) string {
	t.Helper()
	reference.once.Do(func() {
		dir, err := os.MkdirTemp("", "artist-fleet-ref-*")
		if err != nil {
			reference.err = err
			return
		}
		reference.dir = dir
		reference.err = train(dir)
	})
	if reference.err != nil {
		t.Fatalf("in-process run: %v", reference.err)
	}
	return reference.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if reference.dir != "" {
		os.RemoveAll(reference.dir)
	}
	os.Exit(code)
}

// rolloutServer is one artist serve in process, opened on a checkpoint of
// the reference run (its tokenizer; the trainer pushes its own weights),
// behind a handler that records the completion requests and can play
// dead.
type rolloutServer struct {
	*httptest.Server
	completions atomic.Int64
	dead        atomic.Bool
	// dieAfter, when positive, kills the server after that many
	// completion requests.
	dieAfter atomic.Int64
	// hold, when set, keeps each completion request waiting until it is
	// closed (or 2 s pass), so that the fleet sends the requests that
	// come meanwhile to the other server.
	hold chan struct{}
	// died, when set, is closed when the server plays dead.
	died chan struct{}
	// onUpdate, when set, sees each update_weights_from_disk body first;
	// returning false answers success without loading it.
	onUpdate func(openai.UpdateWeightsRequest) bool

	mu   sync.Mutex
	bad  []string // requests that were not token-in/token-out with a seed
	seen []int64  // seeds
}

func startServer(t *testing.T, ckpt string) *rolloutServer {
	t.Helper()
	s, err := server.Open(ckpt, "tiny", 1, server.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := &rolloutServer{}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rs.dead.Load() {
			hijackClose(w)
			return
		}
		switch r.URL.Path {
		case openai.CompletionsPath:
			if n, after := rs.completions.Add(1), rs.dieAfter.Load(); after > 0 && n > after {
				if !rs.dead.Swap(true) && rs.died != nil {
					close(rs.died)
				}
				hijackClose(w)
				return
			}
			if rs.hold != nil {
				select {
				case <-rs.hold:
				case <-time.After(2 * time.Second):
				}
			}
			rs.record(r)
		case openai.UpdateWeightsPath:
			if rs.onUpdate != nil {
				b, _ := io.ReadAll(r.Body)
				var in openai.UpdateWeightsRequest
				json.Unmarshal(b, &in)
				if !rs.onUpdate(in) {
					json.NewEncoder(w).Encode(openai.UpdateWeightsAnswer{Success: true, Message: "ignored"})
					return
				}
				r.Body = io.NopCloser(strings.NewReader(string(b)))
			}
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(rs.Close)
	return rs
}

// hijackClose drops the connection without an answer, as a killed
// process does.
func hijackClose(w http.ResponseWriter) {
	if h, ok := w.(http.Hijacker); ok {
		if c, _, err := h.Hijack(); err == nil {
			c.Close()
		}
	}
}

// record checks that a completion request is token-in/token-out with its
// own seed.
func (rs *rolloutServer) record(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(strings.NewReader(string(b)))
	var in openai.CompletionRequest
	json.Unmarshal(b, &in)
	var ids []int
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if json.Unmarshal(in.Prompt, &ids) != nil || len(ids) == 0 || !in.ReturnTokenIDs || in.Logprobs == nil || in.Seed == nil {
		rs.bad = append(rs.bad, string(b[:min(len(b), 200)]))
		return
	}
	rs.seen = append(rs.seen, *in.Seed)
}

// servers is the -set override that points a run at srvs.
func servers(srvs ...*rolloutServer) string {
	urls := make([]string, len(srvs))
	for i, s := range srvs {
		urls[i] = s.URL
	}
	return "rollout.servers=[" + strings.Join(urls, ",") + "]"
}

// finalWeights is the SHA-256 of the run's latest checkpoint's weights.
func finalWeights(t *testing.T, dir string) string {
	t.Helper()
	ck, err := checkpoint.Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	sha, err := checkpoint.FileSHA256(ck, "model.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// stepMetrics reads metrics.jsonl without the timing and throughput
// values, which vary from run to run.
func stepMetrics(t *testing.T, dir string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if strings.HasPrefix(k, "timing/") || strings.HasPrefix(k, "throughput/") || strings.HasPrefix(k, "sys/") ||
				strings.HasSuffix(k, "tokens_per_s") || k == "wall_s" || k == "time" {
				delete(m, k)
			}
		}
		out = append(out, m)
	}
	return out
}

// sameRun fails unless the run in dir trained what the reference did:
// the same rewards, lengths and losses at every step, and bit-equal
// final weights.
func sameRun(t *testing.T, dir string) {
	t.Helper()
	sameAs(t, dir, referenceRun(t))
}

// sameAs is sameRun against the run in ref.
func sameAs(t *testing.T, dir, ref string) {
	t.Helper()
	if got, want := finalWeights(t, dir), finalWeights(t, ref); got != want {
		t.Errorf("final weights sha256 %s, in process %s", got, want)
	}
	got, want := stepMetrics(t, dir), stepMetrics(t, ref)
	if len(got) != len(want) {
		t.Fatalf("%d metric lines, in process %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			for k, v := range want[i] {
				if !reflect.DeepEqual(got[i][k], v) {
					t.Errorf("line %d: %s = %v, in process %v", i, k, got[i][k], v)
				}
			}
		}
	}
}

// serverCheckpoint is a checkpoint of the reference run to start servers
// on.
func serverCheckpoint(t *testing.T) string {
	t.Helper()
	ck, err := checkpoint.Latest(referenceRun(t))
	if err != nil {
		t.Fatal(err)
	}
	return ck
}

// TestTrainOnServersMatchesInProcess: GRPO with its rollouts on two
// artist serve servers trains what the same seed trains in process, bit
// for bit; every request is token-in/token-out with a seed, and both
// servers take requests.
func TestTrainOnServersMatchesInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three tiny runs")
	}
	ck := serverCheckpoint(t)
	a, b := startServer(t, ck), startServer(t, ck)
	dir := t.TempDir()
	if err := train(dir, servers(a, b)); err != nil {
		t.Fatal(err)
	}
	sameRun(t, dir)
	for i, m := range stepMetrics(t, dir) {
		if d, ok := m["rollout/logprob_diff/mean"].(float64); ok {
			t.Logf("step line %d: rollout/logprob_diff/mean %.3g", i, d)
			if d > 1e-3 {
				t.Errorf("step line %d: the servers' log-probs differ from the trainer's by %g per token", i, d)
			}
		}
	}
	const trajectories = 2 * 2 * 2 // grpo.steps x batch_size x group_size
	if n := a.completions.Load() + b.completions.Load(); n <= trajectories {
		t.Errorf("%d requests for %d trajectories: no trajectory went on after a tool result", n, trajectories)
	}
	for i, s := range []*rolloutServer{a, b} {
		if s.completions.Load() == 0 || len(s.bad) > 0 {
			t.Errorf("server %d: %d completions, %d not token-in/token-out with a seed: %q", i, s.completions.Load(), len(s.bad), s.bad)
		}
	}
}

// TestServerKilledMidStep: a server that dies during a step's rollouts
// leaves its requests to the other; nothing is lost or sampled twice, so
// the run still trains what it trains in process.
func TestServerKilledMidStep(t *testing.T) {
	if testing.Short() {
		t.Skip("trains tiny runs")
	}
	ck := serverCheckpoint(t)
	a, b := startServer(t, ck), startServer(t, ck)
	// a answers nothing until b has died, so the least-busy choice sends
	// b requests until it dies at its fourth, however the machine
	// schedules the rollouts.
	b.died = make(chan struct{})
	a.hold = b.died
	b.dieAfter.Store(3)
	dir := t.TempDir()
	if err := train(dir, servers(a, b)); err != nil {
		t.Fatal(err)
	}
	if !b.dead.Load() {
		t.Fatal("the server did not die during the run")
	}
	sameRun(t, dir)
}

// TestAllServersDown: with every server dead the run stops after bounded
// retries, naming the servers; started again on fresh servers it resumes
// from its last checkpoint and ends where an uninterrupted run ends.
func TestAllServersDown(t *testing.T) {
	if testing.Short() {
		t.Skip("trains tiny runs")
	}
	ck := serverCheckpoint(t)
	a, b := startServer(t, ck), startServer(t, ck)
	// Both die at their first request of step 1, once step 0 is done and
	// checkpointed and step 1's weights are loaded.
	for _, s := range []*rolloutServer{a, b} {
		s.onUpdate = func(in openai.UpdateWeightsRequest) bool {
			if in.WeightVersion == "1" {
				s.dieAfter.Store(max(1, s.completions.Load()))
			}
			return true
		}
	}
	dir := t.TempDir()
	err := train(dir, servers(a, b))
	if err == nil || !strings.Contains(err.Error(), a.URL) || !strings.Contains(err.Error(), b.URL) || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("err = %v, want one naming both servers and how to resume", err)
	}
	t.Logf("stopped with: %v", err)
	c, d := startServer(t, ck), startServer(t, ck)
	if err := train(dir, servers(c, d)); err != nil {
		t.Fatalf("resumed on fresh servers: %v", err)
	}
	if got, want := finalWeights(t, dir), finalWeights(t, referenceRun(t)); got != want {
		t.Errorf("resumed run's final weights sha256 %s, uninterrupted in process %s", got, want)
	}
}

// TestRefusedServers: a server with another tokenizer, or one that keeps
// weights other than those the trainer sent, is refused before any
// rollout, by name.
func TestRefusedServers(t *testing.T) {
	if testing.Short() {
		t.Skip("trains tiny runs")
	}
	other := t.TempDir()
	if err := train(other, "tokenizer_merges=8", "grpo.steps=0", "warmstart.steps=1"); err != nil {
		t.Fatal(err)
	}
	otherCk, err := checkpoint.Latest(other)
	if err != nil {
		t.Fatal(err)
	}
	ck := serverCheckpoint(t)
	ignoring := startServer(t, ck)
	ignoring.onUpdate = func(openai.UpdateWeightsRequest) bool { return false }
	cases := []struct {
		name string
		srv  *rolloutServer
		want string
	}{
		{"another tokenizer", startServer(t, otherCk), "serves another tokenizer"},
		{"weights the trainer did not send", ignoring, "weights the trainer did not send"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			good := startServer(t, ck)
			err := train(t.TempDir(), servers(good, c.srv), "warmstart.steps=1")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.srv.URL) {
				t.Fatalf("err = %v, want %q naming %s", err, c.want, c.srv.URL)
			}
			if n := c.srv.completions.Load() + good.completions.Load(); n != 0 {
				t.Errorf("%d rollout requests before the refusal", n)
			}
		})
	}
}

// TestStaleOnServersMatchesInProcess: with max_staleness 1 the server
// samples the next step while the trainer updates, from the weights the
// schedule names (pushed once per version), and the run trains what the
// same schedule trains in process, bit for bit.
func TestStaleOnServersMatchesInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("trains tiny runs")
	}
	stale := []string{"grpo.max_staleness=1", "grpo.steps=3"}
	ref := t.TempDir()
	if err := train(ref, stale...); err != nil {
		t.Fatal(err)
	}
	a := startServer(t, serverCheckpoint(t))
	var mu sync.Mutex
	var pushed []string
	a.onUpdate = func(in openai.UpdateWeightsRequest) bool {
		mu.Lock()
		defer mu.Unlock()
		pushed = append(pushed, string(in.WeightVersion))
		return true
	}
	dir := t.TempDir()
	if err := train(dir, append(stale, servers(a))...); err != nil {
		t.Fatal(err)
	}
	sameAs(t, dir, ref)
	// Steps 1 and 2 sample from the first weights (weight_version 1), step 3 from those after step 1.
	if want := []string{"1", "2"}; !reflect.DeepEqual(pushed, want) {
		t.Errorf("weight versions pushed %q, want %q", pushed, want)
	}
	for i, m := range stepMetrics(t, dir)[1:] {
		if got, want := m["rollout/staleness/mean"], float64(min(i, 1)); got != want {
			t.Errorf("step %d: rollout/staleness/mean %v, want %v", i+1, got, want)
		}
	}
}
