// Package fleet drives OpenAI-compatible rollout servers for the
// trainer: it spreads trajectory segments over them by fewest outstanding
// requests (rollout.Completer, token ids in and out), moves requests off a
// server that fails, and pushes new weights to every server with SGLang's
// control routes (POST /update_weights_from_disk, GET /get_model_info)
// or, for vLLM, by having each re-read the folder it was started on (POST
// /collective_rpc reload_weights; Sync).
package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// Fleet is a set of rollout servers. It is safe for concurrent use.
type Fleet struct {
	servers []*server
	tok     rollout.Tokenizer
	stops   []int // token ids that end a turn (rollout.StopIDs)
	// Rounds bounds how many times a request tries every server before
	// the fleet gives up (default 3); Backoff is the wait between rounds
	// (default 1s, doubling).
	Rounds  int
	Backoff time.Duration
	// Sync is how Push gives the servers new weights (default
	// UpdateFromDisk); set it before the first Check or Push.
	Sync Sync

	mu      sync.Mutex
	version string // the weight_version every answer must carry; "" before the first push
}

type server struct {
	url         string
	client      *openai.Client
	outstanding int       // requests in flight
	served      int       // requests answered
	failed      int       // requests that failed here and went elsewhere
	downUntil   time.Time // after a failure, requests go elsewhere until then
	dropped     bool      // it failed a weight push: out of service for the run
}

// downFor is how long a server that failed a request is passed over while
// another is up.
const downFor = 2 * time.Second

// New returns a fleet of the servers at urls (base addresses such as
// http://host:8080); tok names the turn-ending tokens of the run.
func New(urls []string, tok rollout.Tokenizer) (*Fleet, error) {
	if len(urls) == 0 {
		return nil, errors.New("fleet: no servers")
	}
	f := &Fleet{tok: tok, stops: rollout.StopIDs(tok)}
	seen := map[string]bool{}
	for _, u := range urls {
		u = strings.TrimSuffix(u, "/")
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("fleet: server %q is not an http:// or https:// address", u)
		}
		if seen[u] {
			return nil, fmt.Errorf("fleet: server %s is listed twice", u)
		}
		seen[u] = true
		f.servers = append(f.servers, &server{url: u, client: &openai.Client{URL: u, Retries: -1}})
	}
	return f, nil
}

// URLs lists the servers.
func (f *Fleet) URLs() []string {
	out := make([]string, len(f.servers))
	for i, s := range f.servers {
		out[i] = s.url
	}
	return out
}

// Stats reports, per server, the requests it answered and those that
// failed there and were sent elsewhere.
func (f *Fleet) Stats() (served, failed []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.servers {
		served, failed = append(served, s.served), append(failed, s.failed)
	}
	return served, failed
}

// pick returns the server with the fewest outstanding requests among
// those in service and not in skip, preferring servers that have not
// failed lately (the lowest index on ties), and counts the request on it;
// nil when every server is skipped.
func (f *Fleet) pick(skip map[*server]bool) *server {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	var best *server
	better := func(s *server) bool {
		if best == nil {
			return true
		}
		if sd, bd := s.downUntil.After(now), best.downUntil.After(now); sd != bd {
			return bd
		}
		return s.outstanding < best.outstanding
	}
	for _, s := range f.servers {
		if !skip[s] && !s.dropped && better(s) {
			best = s
		}
	}
	if best != nil {
		best.outstanding++
	}
	return best
}

func (f *Fleet) done(s *server, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s.outstanding--
	if ok {
		s.served++
		s.downUntil = time.Time{}
	} else {
		s.failed++
		s.downUntil = time.Now().Add(downFor)
	}
}

// Complete sends one segment to the least busy server, with the prompt as
// token ids, return_token_ids and logprobs requested and the segment's
// seed. A server that cannot be reached or answers 5xx or 429 is left for
// the next one; a round in which every server failed is followed by a
// wait, and after Rounds rounds the error names every server. An answer
// from weights other than those last pushed (Push) is an error.
func (f *Fleet) Complete(ctx context.Context, req rollout.SegmentRequest) (rollout.Completion, error) {
	body := f.request(req)
	rounds, wait := f.Rounds, f.Backoff
	if rounds <= 0 {
		rounds = 3
	}
	if wait <= 0 {
		wait = time.Second
	}
	var errs []string
	for round := 0; round < rounds; round++ {
		tried := map[*server]bool{}
		for s := f.pick(tried); s != nil; s = f.pick(tried) {
			tried[s] = true
			ans, err := s.client.Complete(ctx, body)
			if err == nil {
				f.done(s, true)
				return f.completion(s, ans)
			}
			f.done(s, false)
			if ctx.Err() != nil {
				return rollout.Completion{}, fmt.Errorf("fleet: %w", ctx.Err())
			}
			if !errors.Is(err, openai.ErrRetriesSpent) {
				return rollout.Completion{}, fmt.Errorf("fleet: server %s refused a request: %w", s.url, err)
			}
			errs = append(errs, fmt.Sprintf("%s: %v", s.url, err))
		}
		if round < rounds-1 {
			select {
			case <-ctx.Done():
				return rollout.Completion{}, fmt.Errorf("fleet: %w", ctx.Err())
			case <-time.After(wait):
			}
			wait *= 2
		}
	}
	return rollout.Completion{}, fmt.Errorf("fleet: every rollout server failed %d times (%s); start them again (artist serve), then run the same command to resume from the last checkpoint: %s",
		rounds, strings.Join(f.URLs(), ", "), strings.Join(lastPerServer(errs), "; "))
}

// lastPerServer keeps the last error of each server.
func lastPerServer(errs []string) []string {
	last := map[string]string{}
	var order []string
	for _, e := range errs {
		url, _, _ := strings.Cut(e, ": ")
		if _, ok := last[url]; !ok {
			order = append(order, url)
		}
		last[url] = e
	}
	out := make([]string, len(order))
	for i, u := range order {
		out[i] = last[u]
	}
	return out
}

func (f *Fleet) request(req rollout.SegmentRequest) openai.CompletionRequest {
	c := req.Config
	stop, _ := json.Marshal(c.Stop)
	if len(c.Stop) == 0 {
		stop = nil
	}
	return openai.CompletionRequest{Prompt: openai.TokenIDs(req.Prompt), MaxTokens: openai.Ptr(c.MaxTokens),
		Temperature: openai.Ptr(c.Temperature), TopP: openai.Ptr(c.TopP), Stop: stop, Seed: openai.Ptr(req.Seed),
		N: openai.Ptr(1), Logprobs: openai.Ptr(0), ReturnTokenIDs: true}
}

// completion reads an answer as a rollout.Completion.
func (f *Fleet) completion(s *server, ans openai.Completion) (rollout.Completion, error) {
	f.mu.Lock()
	want := f.version
	f.mu.Unlock()
	if want != "" && ans.WeightVersion != want {
		return rollout.Completion{}, fmt.Errorf("fleet: server %s answered from weight_version %q, but the trainer sent %q: it serves weights the trainer did not send", s.url, ans.WeightVersion, want)
	}
	ch := ans.Choices[0]
	if ch.TokenLogprobs == nil && ch.Logprobs != nil && len(ch.Logprobs.TokenLogprobs) == len(ch.TokenIDs) {
		for _, lp := range ch.Logprobs.TokenLogprobs { // vLLM: logprobs beside return_token_ids
			ch.TokenLogprobs = append(ch.TokenLogprobs, float32(lp))
		}
	}
	if len(ch.TokenIDs) == 0 || len(ch.TokenLogprobs) != len(ch.TokenIDs) {
		return rollout.Completion{}, fmt.Errorf("fleet: server %s answered %d token ids and %d token log-probs: it must return token_ids and token_logprobs (return_token_ids)", s.url, len(ch.TokenIDs), len(ch.TokenLogprobs))
	}
	c := rollout.Completion{Tokens: ch.TokenIDs, LogProbs: ch.TokenLogprobs, Text: ch.Text, Length: ch.FinishReason == "length"}
	c.EOS = slices.Contains(f.stops, c.Tokens[len(c.Tokens)-1])
	c.Stop, _ = ch.StopString()
	return c, nil
}

// Info asks every server for its model info, in server order.
func (f *Fleet) Info(ctx context.Context) ([]openai.ModelInfo, error) {
	out := make([]openai.ModelInfo, len(f.servers))
	for i, s := range f.servers {
		if err := call(ctx, http.MethodGet, s.url+openai.ModelInfoPath, nil, &out[i]); err != nil {
			return nil, fmt.Errorf("fleet: server %s: %w", s.url, err)
		}
	}
	return out, nil
}

// probeText is what Check has a server without tokenizer digests encode.
const probeText = "Probe: 12+34 = 46, <think>ok</think>\n<code>fmt.Println(3.5)</code> héllo"

// Check refuses a server whose tokenizer.json differs from the run's
// (tokenizerSHA, its SHA-256). A server that reports no digest (not
// artist serve) must encode a probe text to the run's ids (POST
// /tokenize).
//
// With VLLMReload every server is probed, and must list a model at
// GET /v1/models (vLLM has no /get_model_info); tokenizerSHA is unused.
func (f *Fleet) Check(ctx context.Context, tokenizerSHA string) error {
	if f.Sync == VLLMReload {
		for _, s := range f.servers {
			if err := f.checkVLLM(ctx, s); err != nil {
				return err
			}
		}
		return nil
	}
	infos, err := f.Info(ctx)
	if err != nil {
		return err
	}
	for i, in := range infos {
		if in.TokenizerSHA256 == "" {
			if err := f.probe(ctx, f.servers[i]); err != nil {
				return err
			}
			continue
		}
		if in.TokenizerSHA256 != tokenizerSHA {
			return fmt.Errorf("fleet: server %s serves another tokenizer (tokenizer.json sha256 %q, the run's %s): start it on a checkpoint of this run (artist serve -checkpoint RUN/checkpoints/...)",
				f.servers[i].url, in.TokenizerSHA256, tokenizerSHA)
		}
	}
	return nil
}

// probe compares the server's encoding of probeText with the run's.
func (f *Fleet) probe(ctx context.Context, s *server) error {
	text, special := probeText, false
	var ans openai.TokenizeAnswer
	if err := call(ctx, http.MethodPost, s.url+openai.TokenizePath, openai.TokenizeRequest{Prompt: &text, AddSpecialTokens: &special}, &ans); err != nil {
		return fmt.Errorf("fleet: server %s reports no tokenizer digest and its /tokenize failed: %w", s.url, err)
	}
	if want := f.tok.Encode(probeText); !slices.Equal(ans.Tokens, want) {
		return fmt.Errorf("fleet: server %s serves another tokenizer: it encodes %q as %v, the run as %v", s.url, probeText, ans.Tokens, want)
	}
	return nil
}

// Push has every server in service load the weights folder dir as
// version, then checks that each reports that version and the weights
// file's SHA-256 (weightsSHA; a server that reports no digest is held
// to the version alone); from then on every answer must carry version. A
// server that cannot be reached is dropped from service for
// the rest of the run and named in dropped; one that refuses the folder,
// or reports other weights after loading it, is an error, as is a fleet
// left with no server.
//
// With VLLMReload, dir is the folder every server was started on, which
// the caller has rewritten; each server is told to re-read it (POST
// /collective_rpc reload_weights) and nothing is checked after the
// reload: vLLM reports no weight version, and answers need carry none.
// Unreachable servers are dropped and refusals are errors as above.
func (f *Fleet) Push(ctx context.Context, dir, version, weightsSHA string) (dropped []string, err error) {
	if f.Sync == VLLMReload {
		dropped, unreachable, err := f.reloadAll(ctx, dir)
		if err != nil {
			return dropped, err
		}
		return dropped, f.noneLeft(unreachable)
	}
	var unreachable []string
	for _, s := range f.live() {
		var ans openai.UpdateWeightsAnswer
		err := call(ctx, http.MethodPost, s.url+openai.UpdateWeightsPath, openai.UpdateWeightsRequest{ModelPath: dir, WeightVersion: openai.Version(version)}, &ans)
		var ue *unreachableError
		switch {
		case errors.As(err, &ue):
			f.drop(s)
			dropped, unreachable = append(dropped, s.url), append(unreachable, fmt.Sprintf("%s: %v", s.url, err))
			continue
		case err == nil && !ans.Success:
			err = errors.New(ans.Message)
		}
		if err != nil {
			return dropped, fmt.Errorf("fleet: server %s did not load %s: %w", s.url, dir, err)
		}
		var in openai.ModelInfo
		if err := call(ctx, http.MethodGet, s.url+openai.ModelInfoPath, nil, &in); errors.As(err, &ue) {
			f.drop(s)
			dropped, unreachable = append(dropped, s.url), append(unreachable, fmt.Sprintf("%s: %v", s.url, err))
			continue
		} else if err != nil {
			return dropped, fmt.Errorf("fleet: server %s: %w", s.url, err)
		}
		if in.WeightVersion != version || in.WeightsSHA256 != "" && in.WeightsSHA256 != weightsSHA {
			return dropped, fmt.Errorf("fleet: server %s serves weight_version %q (weights sha256 %q) after loading %s as %q (sha256 %s): it serves weights the trainer did not send",
				s.url, in.WeightVersion, in.WeightsSHA256, dir, version, weightsSHA)
		}
	}
	if err := f.noneLeft(unreachable); err != nil {
		return dropped, err
	}
	f.mu.Lock()
	f.version = version
	f.mu.Unlock()
	return dropped, nil
}

// noneLeft is the error of a fleet left with no server in service, with
// the errors of the servers dropped (unreachable); nil while one is left.
func (f *Fleet) noneLeft(unreachable []string) error {
	if len(f.live()) > 0 {
		return nil
	}
	how := "artist serve"
	if f.Sync == VLLMReload {
		how = "VLLM_SERVER_DEV_MODE=1 vllm serve DIR"
	}
	return fmt.Errorf("fleet: no rollout server is left (%s); start them again (%s), then run the same command to resume from the last checkpoint: %s",
		strings.Join(f.URLs(), ", "), how, strings.Join(unreachable, "; "))
}

// drop takes s out of service for the rest of the run.
func (f *Fleet) drop(s *server) {
	f.mu.Lock()
	s.dropped = true
	f.mu.Unlock()
}

// live lists the servers in service.
func (f *Fleet) live() []*server {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*server
	for _, s := range f.servers {
		if !s.dropped {
			out = append(out, s)
		}
	}
	return out
}

// unreachableError is a control request that got no answer.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return e.err.Error() }

// call sends one control request and decodes the answer into out. A
// non-200 answer whose body decodes into out is returned with its status.
func call(ctx context.Context, method, url string, in, out any) error {
	status, data, err := send(ctx, method, url, in)
	if err != nil {
		return err
	}
	if json.Unmarshal(data, out) != nil || status != http.StatusOK && status != http.StatusBadRequest {
		return fmt.Errorf("%s %s: %d %s: %s", method, url, status, http.StatusText(status), bytes.TrimSpace(data[:min(len(data), 300)]))
	}
	return nil
}

// send sends one control request (in as JSON, none when nil) and returns
// the answer's status and body (its first MiB). A request that gets no
// answer is an *unreachableError, unless ctx ended.
func send(ctx context.Context, method, url string, in any) (status int, data []byte, err error) {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, err
		}
		return 0, nil, &unreachableError{err}
	}
	defer res.Body.Close()
	data, err = io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return 0, nil, &unreachableError{err}
	}
	return res.StatusCode, data, nil
}

var _ rollout.Completer = (*Fleet)(nil)
