package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// batchServer serves the tiny checkpoint as artist serve opens it and
// returns the server itself too, whose batchers the tests inspect; each
// of set changes the server before it serves.
func batchServer(t *testing.T, set ...func(*Server)) (*Server, *httptest.Server) {
	t.Helper()
	s, err := Open(tinyCheckpoint(t), "tiny", 1, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range set {
		f(s)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.gate.resume) // runs first: a test that fails while paused lets its requests end
	return s, srv
}

// sampledChoice is what a completion choice decoded: the fields that must
// not depend on the other requests in flight.
type sampledChoice struct {
	IDs     []int
	LogProb []float32
	Text    string
	Finish  string
	Stop    string
	Version string
}

// completeIDs posts a token-in/token-out completion and returns its
// choices.
func completeIDs(t *testing.T, url string, req map[string]any) []sampledChoice {
	t.Helper()
	body := map[string]any{"return_token_ids": true}
	for k, v := range req {
		body[k] = v
	}
	var out openai.Completion
	if code := postAny(t, url+openai.CompletionsPath, body, &out); code != http.StatusOK {
		t.Errorf("completion %v: status %d", req, code)
		return nil
	}
	var got []sampledChoice
	for _, c := range out.Choices {
		stop, _ := c.StopString()
		got = append(got, sampledChoice{c.TokenIDs, c.TokenLogprobs, c.Text, c.FinishReason, stop, out.WeightVersion})
	}
	return got
}

// batchRequests are requests with their own sampling settings: greedy and
// sampled, nucleus, stop strings, budgets and prompts of several lengths.
func batchRequests(n int) []map[string]any {
	prompts := [][]int{{55, 32, 98, 111, 120, 101, 115, 10}, {50, 43, 50, 10}, {72, 111, 119, 32, 109, 97, 110, 121, 32, 99, 111, 105, 110, 115, 63, 10}, {113}}
	var out []map[string]any
	for i := range n {
		req := map[string]any{"prompt": prompts[i%len(prompts)], "max_tokens": 24 + 30*(i%4), "seed": 100 + i}
		switch i % 4 {
		case 0:
			req["temperature"] = 0
		case 1:
			req["temperature"], req["top_p"] = 0.8, 0.9
		case 2:
			req["stop"] = []string{"1", "2", "3", "4", "5", "<", " "}
		}
		out = append(out, req)
	}
	return out
}

// concurrently posts every request while generation is paused, waits
// until the gate holds them all, then lets them go at once, so that they
// decode together; it returns their choices.
func concurrently(t *testing.T, s *Server, url string, reqs []map[string]any) [][]sampledChoice {
	t.Helper()
	out := make([][]sampledChoice, len(reqs))
	var wg sync.WaitGroup
	s.gate.pause()
	held := s.gate.held()
	for i, req := range reqs {
		wg.Go(func() { out[i] = completeIDs(t, url, req) })
		if n, ok := req["n"].(int); ok {
			held += n
		} else {
			held++
		}
	}
	waitHeld(t, s, held)
	s.gate.resume()
	wg.Wait()
	return out
}

// waitHeld waits until the gate holds n requests (or choices).
func waitHeld(t *testing.T, s *Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); s.gate.held() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the gate holds %d requests, want %d", s.gate.held(), n)
		}
	}
}

// TestBatchInvariance: requests decoded together sample, token for token
// and log-prob for log-prob, what each samples alone; they did share
// steps; stop strings end them as they end them alone.
func TestBatchInvariance(t *testing.T) {
	for _, n := range []int{2, 8, 32} {
		t.Run(fmt.Sprintf("%d streams", n), func(t *testing.T) {
			s, srv := batchServer(t)
			reqs := batchRequests(n)
			var alone [][]sampledChoice
			for _, req := range reqs {
				alone = append(alone, completeIDs(t, srv.URL, req))
			}
			stopped := 0
			for i := range reqs {
				if len(alone[i]) == 1 && alone[i][0].Stop != "" {
					stopped++
				}
			}
			// Whether the requests meet in one decode step depends on the
			// scheduler of a loaded machine (the race detector slows
			// their way from the gate to the batch), so the test tries a
			// few times: every try must sample what each request samples
			// alone, and at least one must have shared a step.
			const tries = 5
			shared := false
			var rows, steps int
			for try := 0; try < tries && !shared; try++ {
				before := s.current().batch.Stats()
				together := concurrently(t, s, srv.URL, reqs)
				after := s.current().batch.Stats()
				for i := range reqs {
					if !reflect.DeepEqual(together[i], alone[i]) {
						t.Fatalf("try %d, request %d (%v): together %+v, alone %+v", try, i, reqs[i], together[i], alone[i])
					}
				}
				steps, rows = after.Steps-before.Steps, after.Rows-before.Rows
				shared = rows > steps
			}
			if !shared {
				t.Errorf("in %d tries the requests never shared a step (last: %d rows in %d steps)", tries, rows, steps)
			}
			if n >= 8 && stopped == 0 {
				t.Error("no request ended on a stop string: the test checks no stop")
			}
		})
	}
}

// TestBatchJoinMidDecode: requests that arrive while another decodes join
// its batch (prefill beside its decode steps) and leave as they finish;
// everyone samples what it samples alone, and the batch empties.
func TestBatchJoinMidDecode(t *testing.T) {
	cases := []struct {
		name   string
		long   map[string]any
		joiner []map[string]any
	}{
		{"first joiners", map[string]any{"prompt": []int{72, 105, 10}, "seed": 1, "temperature": 0}, batchRequests(4)},
		{"other joiners", map[string]any{"prompt": []int{113}, "seed": 2, "temperature": 0}, batchRequests(8)[4:]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var armed atomic.Bool
			s, srv := batchServer(t, func(s *Server) { s.gen = pauseAfterFirstToken(s, &armed) })
			tc.long["max_tokens"] = s.context() - len(tc.long["prompt"].([]int)) // greedy: it runs to the end of the context
			wantLong := completeIDs(t, srv.URL, tc.long)
			var want [][]sampledChoice
			for _, r := range tc.joiner {
				want = append(want, completeIDs(t, srv.URL, r))
			}
			b := s.current().batch
			before := b.Stats()
			armed.Store(true) // the long request pauses generation after its first token
			res, cancel := openStream(t, srv.URL, tc.long)
			defer cancel()
			first := readChunk(t, res) // the long request decodes
			got := make([][]sampledChoice, len(tc.joiner))
			var wg sync.WaitGroup
			for i, r := range tc.joiner {
				wg.Go(func() { got[i] = completeIDs(t, srv.URL, r) })
			}
			waitHeld(t, s, 1+len(tc.joiner)) // the long request between two tokens, the joiners before their first
			s.gate.resume()
			wg.Wait()
			rest := readStream(t, res)
			gotLong := append([]openai.CompletionChunk{first}, rest...)
			if ids := streamIDs(gotLong); !reflect.DeepEqual(ids, wantLong[0].IDs) {
				t.Errorf("long request: streamed %v, alone %v", ids, wantLong[0].IDs)
			}
			for i := range tc.joiner {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("joiner %d: %+v, alone %+v", i, got[i], want[i])
				}
			}
			if st := b.Stats(); st.Widest < 2 || st.Rows-before.Rows <= st.Steps-before.Steps {
				t.Errorf("stats %+v (before %+v): no step held the long request and a joiner", st, before)
			}
			waitEmpty(t, b)
		})
	}
}

// pauseAfterFirstToken is a generator that samples as the model does;
// the first request to start after armed is set pauses the gate once it
// has emitted its first token, so that it is held between two tokens
// however fast it decodes.
func pauseAfterFirstToken(s *Server, armed *atomic.Bool) genFunc {
	return func(ctx context.Context, req genRequest, emit func(string, []sampled)) (rollout.Completion, error) {
		if !armed.CompareAndSwap(true, false) {
			return s.modelGen(ctx, req, emit)
		}
		first := true
		return s.modelGen(ctx, req, func(text string, toks []sampled) {
			emit(text, toks)
			if first {
				first = false
				s.gate.pause()
			}
		})
	}
}

// TestBatchCancel: a client that goes away takes its row out of the batch
// at once; the others decode on unchanged.
func TestBatchCancel(t *testing.T) {
	s, srv := batchServer(t)
	long := s.context() - 3
	other := map[string]any{"prompt": []int{50, 43, 50, 10}, "max_tokens": min(100, long/2), "seed": 5, "temperature": 1}
	want := completeIDs(t, srv.URL, other)
	b := s.current().batch
	before := b.Stats()
	s.gate.pause()
	type stream struct {
		res    *http.Response
		cancel context.CancelFunc
	}
	opened := make(chan stream, 1)
	go func() {
		res, cancel := openStream(t, srv.URL, map[string]any{"prompt": []int{72, 105, 10}, "max_tokens": long, "seed": 3})
		opened <- stream{res, cancel}
	}()
	got := make(chan []sampledChoice, 1)
	go func() { got <- completeIDs(t, srv.URL, other) }()
	waitHeld(t, s, 2)
	s.gate.resume()
	st := <-opened
	readChunk(t, st.res)
	st.cancel()
	st.res.Body.Close()
	if g := <-got; !reflect.DeepEqual(g, want) {
		t.Errorf("beside a cancelled request: %+v, alone %+v", g, want)
	}
	waitEmpty(t, b)
	if rows := b.Stats().Rows - before.Rows; rows >= long+len(want[0].IDs) {
		t.Errorf("%d rows decoded: the cancelled request ran to its end", rows)
	}
}

// TestBatchChoices: the n choices of one request decode as rows of one
// batch, choice i as a request of its own with seed+i does.
func TestBatchChoices(t *testing.T) {
	cases := []map[string]any{
		{"prompt": []int{50, 43, 50, 10}, "max_tokens": 64, "seed": 40, "n": 4},
		{"prompt": []int{113}, "max_tokens": 64, "seed": 41, "n": 3, "temperature": 0.7, "top_p": 0.9, "stop": []string{"</answer>"}},
	}
	for ci, req := range cases {
		t.Run(fmt.Sprint(ci), func(t *testing.T) {
			s, srv := batchServer(t)
			n := req["n"].(int)
			var want []sampledChoice
			for i := range n {
				one := map[string]any{}
				for k, v := range req {
					one[k] = v
				}
				delete(one, "n")
				one["seed"] = req["seed"].(int) + i
				want = append(want, completeIDs(t, srv.URL, one)...)
			}
			// Whether the n choices meet in one decode step depends on
			// the scheduler of a loaded machine, so the test tries a few
			// times: every try must sample what one-by-one sampling does,
			// and at least one must have shared a step.
			const tries = 5
			shared := false
			for try := 0; try < tries && !shared; try++ {
				before := s.current().batch.Stats()
				got := concurrently(t, s, srv.URL, []map[string]any{req})[0]
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("try %d, n=%d: %+v, one by one %+v", try, n, got, want)
				}
				st := s.current().batch.Stats()
				shared = st.Widest >= 2 && st.Rows-before.Rows > st.Steps-before.Steps
			}
			if !shared {
				t.Errorf("stats %+v: in %d tries the choices never shared a step", s.current().batch.Stats(), tries)
			}
		})
	}
}

// TestBatchWeightSwap: requests in flight when new weights arrive finish
// on the version they started on, in that version's batch, while
// requests that start after decode on the new one; each samples what it
// samples alone on its version. Whether each version's requests meet in
// one decode step depends on the scheduler of a loaded machine, so the
// scenario runs up to three times: every run must sample as above, and
// at least one must have shared steps in both batches.
func TestBatchWeightSwap(t *testing.T) {
	const tries = 3
	var o, n rollout.BatchStats
	for try := 0; try < tries; try++ {
		if o, n = weightSwap(t); o.Widest >= 2 && n.Widest >= 2 {
			return
		}
	}
	t.Errorf("old batch %+v, new batch %+v: in %d tries each version's requests never shared steps", o, n, tries)
}

// weightSwap runs TestBatchWeightSwap's scenario once and returns the
// stats of the old and the new version's batches.
func weightSwap(t *testing.T) (old, cur rollout.BatchStats) {
	t.Helper()
	s, srv := batchServer(t)
	_, other, _ := rolloutServer(t)
	reqs := batchRequests(6)
	var wantOld [][]sampledChoice
	for _, r := range reqs[:3] {
		wantOld = append(wantOld, completeIDs(t, srv.URL, r))
	}
	prev := s.current()
	s.gate.pause()
	got := make([][]sampledChoice, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs[:3] {
		wg.Go(func() { got[i] = completeIDs(t, srv.URL, r) })
	}
	waitHeld(t, s, 3) // they took the old weights and wait at the gate
	if code := postAny(t, srv.URL+openai.UpdateWeightsPath, map[string]any{"model_path": other, "weight_version": "2"}, nil); code != http.StatusOK {
		t.Fatalf("update: status %d", code)
	}
	for i, r := range reqs[3:] {
		wg.Go(func() { got[3+i] = completeIDs(t, srv.URL, r) })
	}
	waitHeld(t, s, 6)
	s.gate.resume()
	wg.Wait()
	for i, r := range reqs {
		want := wantOld[min(i, 2)]
		if i >= 3 {
			want = completeIDs(t, srv.URL, r)
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("request %d: %+v, alone on its version %+v", i, got[i], want)
		}
		if v := got[i][0].Version; (i < 3) != (v == defaultVersion) {
			t.Errorf("request %d: weight_version %q", i, v)
		}
	}
	waitEmpty(t, prev.batch)
	return prev.batch.Stats(), s.current().batch.Stats()
}

// openStream starts a streaming completion; cancel ends it from the
// client's side.
func openStream(t *testing.T, url string, req map[string]any) (*http.Response, context.CancelFunc) {
	t.Helper()
	body := map[string]any{"stream": true, "return_token_ids": true}
	for k, v := range req {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	ctx, cancel := context.WithCancel(context.Background())
	hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+openai.CompletionsPath, bytes.NewReader(b))
	hr.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	res.Body = struct {
		*bufio.Reader
		closer
	}{bufio.NewReader(res.Body), closer{res.Body}}
	return res, cancel
}

type closer struct{ c interface{ Close() error } }

func (c closer) Close() error { return c.c.Close() }

// readChunk reads one event of a stream.
func readChunk(t *testing.T, res *http.Response) openai.CompletionChunk {
	t.Helper()
	br := res.Body.(interface{ ReadString(byte) (string, error) })
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok {
			continue
		}
		var c openai.CompletionChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		return c
	}
}

// readStream reads the events left up to [DONE].
func readStream(t *testing.T, res *http.Response) []openai.CompletionChunk {
	t.Helper()
	br := res.Body.(interface{ ReadString(byte) (string, error) })
	var out []openai.CompletionChunk
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended without [DONE]: %v", err)
		}
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			return out
		}
		var c openai.CompletionChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, c)
	}
}

func streamIDs(chunks []openai.CompletionChunk) []int {
	var ids []int
	for _, c := range chunks {
		for _, ch := range c.Choices {
			ids = append(ids, ch.TokenIDs...)
		}
	}
	return ids
}

// waitEmpty fails unless every row leaves b within a few seconds.
func waitEmpty(t *testing.T, b *rollout.Batcher) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b.Idle() {
			return
		}
	}
	t.Errorf("rows still in the batch: %+v", b.Stats())
}
