package main

// artist bench -serve: aggregate completion tokens/s of artist serve at
// several numbers of concurrent streams, on one checkpoint in one run.

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
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/server"
)

// serveBenchReport is the JSON object artist bench -serve prints.
type serveBenchReport struct {
	Backend    string          `json:"backend"`
	Checkpoint string          `json:"checkpoint"`
	Prompt     int             `json:"prompt"`
	NewTokens  int             `json:"new_tokens"`
	Requests   int             `json:"requests_per_stream"`
	Runs       []serveBenchRun `json:"runs"`
	// Speedup is the last run's tokens/s over the first's.
	Speedup float64 `json:"speedup"`
}

// serveBenchRun is one measurement: streams clients, each sending its
// requests one after the other.
type serveBenchRun struct {
	Streams          int     `json:"streams"`
	CompletionTokens int     `json:"completion_tokens"`
	WallS            float64 `json:"wall_s"`
	TokensPerS       float64 `json:"tokens_per_s"`
}

// parseStreams reads -streams: a comma-separated list of counts >= 1.
func parseStreams(v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-streams %q: want counts >= 1 separated by commas, e.g. 1,32", v)
		}
		out = append(out, n)
	}
	return out, nil
}

// benchServe serves the checkpoint on a loopback port in process and, for
// each count of streams, has that many clients send s.steps completions
// each (a random token-id prompt of s.prompt tokens, s.newTokens at most,
// temperature 1, a seed per request), and reports the completion tokens
// of all answers over the wall time.
func benchServe(ctx context.Context, s benchSettings, stdout, stderr io.Writer) error {
	if s.checkpoint == "" {
		return errors.New("-serve needs -checkpoint DIR (a served model needs its tokenizer)")
	}
	streams, err := parseStreams(s.streams)
	if err != nil {
		return err
	}
	sel, err := policy.DefaultBackend()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "artist bench: backend %v\n", sel)
	srv, err := server.Open(s.checkpoint, "bench", s.seed, server.Limits{}, stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(ln)
	defer hs.Close()
	url := "http://" + ln.Addr().String() + openai.CompletionsPath
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	vocab, err := benchVocab(s.checkpoint)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewSource(s.seed))
	prompt := make([]int, s.prompt)
	for i := range prompt {
		prompt[i] = rng.Intn(vocab)
	}
	rep := serveBenchReport{Backend: sel.String(), Checkpoint: s.checkpoint, Prompt: s.prompt, NewTokens: s.newTokens, Requests: s.steps}
	if _, err := benchServeRun(ctx, client, url, prompt, s, 1, -1); err != nil { // warm up
		return err
	}
	for i, n := range streams {
		run, err := benchServeRun(ctx, client, url, prompt, s, n, int64(i*1_000_000))
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "artist bench: %d streams: %d tokens in %.2f s, %.1f tokens/s\n", n, run.CompletionTokens, run.WallS, run.TokensPerS)
		rep.Runs = append(rep.Runs, run)
	}
	if first := rep.Runs[0].TokensPerS; first > 0 {
		rep.Speedup = benchRound(rep.Runs[len(rep.Runs)-1].TokensPerS/first, 2)
	}
	return benchPrintJSON(stdout, rep)
}

// benchVocab is the vocabulary of the checkpoint's tokenizer, which
// random prompts are drawn from.
func benchVocab(dir string) (int, error) {
	dir, err := checkpoint.Resolve(dir, io.Discard)
	if err != nil {
		return 0, err
	}
	tok, err := policy.LoadTokenizer(filepath.Join(dir, policy.TokenizerJSONFile))
	if err != nil {
		return 0, err
	}
	return tok.VocabSize(), nil
}

// benchServeRun runs n streams of s.steps requests each (one request when
// seedBase < 0, the warm-up) and measures them.
func benchServeRun(ctx context.Context, client *http.Client, url string, prompt []int, s benchSettings, n int, seedBase int64) (serveBenchRun, error) {
	reqs := s.steps
	if seedBase < 0 {
		reqs, seedBase = 1, 0
	}
	tokens := make([]int, n)
	errs := make([]error, n)
	began := time.Now()
	var wg sync.WaitGroup
	for st := range n {
		wg.Go(func() {
			for r := range reqs {
				seed := seedBase + int64(st*reqs+r)
				got, err := benchComplete(ctx, client, url, prompt, s.newTokens, seed)
				if err != nil {
					errs[st] = err
					return
				}
				tokens[st] += got
			}
		})
	}
	wg.Wait()
	wall := time.Since(began).Seconds()
	if err := errors.Join(errs...); err != nil {
		return serveBenchRun{}, err
	}
	run := serveBenchRun{Streams: n, WallS: benchRound(wall, 3)}
	for _, t := range tokens {
		run.CompletionTokens += t
	}
	run.TokensPerS = benchRound(float64(run.CompletionTokens)/wall, 1)
	return run, nil
}

// benchComplete sends one completion and returns its completion tokens.
func benchComplete(ctx context.Context, client *http.Client, url string, prompt []int, maxTokens int, seed int64) (int, error) {
	body, _ := json.Marshal(map[string]any{"prompt": prompt, "max_tokens": maxTokens, "temperature": 1, "seed": seed})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return 0, fmt.Errorf("bench -serve: status %d: %s", res.StatusCode, bytes.TrimSpace(b))
	}
	var out openai.Completion
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return 0, err
	}
	return out.Usage.CompletionTokens, nil
}
