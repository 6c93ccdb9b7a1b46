package main

// artist bench: the speed of the model on this machine's compute backend.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"slices"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/internal/memplan"
	"github.com/artist-rl/artist/internal/sysmem"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/trainer"
)

// benchSettings are the flags of artist bench.
type benchSettings struct {
	checkpoint, modelConfig string
	cpuProfile              string // -cpuprofile: where the CPU profile goes
	batch, seq              int    // training batch: sequences × tokens
	decodeBatch, prompt     int    // decoding: sequences × prompt tokens
	newTokens               int    // decoded tokens per sequence
	steps, warmup           int    // timed and untimed repetitions
	seed                    int64
	grpo                    bool   // one GRPO-shaped step, phase by phase
	allreduce               bool   // the gradient all-reduce over an MPI job's ranks
	floats                  int    // -allreduce size without a model
	force                   bool   // run past a memory plan that does not fit
	loraRank                int    // LoRA adapters of this rank on every target; 0: full weights
	microBatch              int    // -grpo: sequences per backward pass; 0: all at once
	recompute               bool   // decoder blocks recompute their values in the backward pass
	referenceDType          string // -grpo: a separate frozen reference copy, "f32" or "bf16"; "": the model itself
	serve                   bool   // artist serve's tokens/s at several stream counts
	streams                 string // -serve: the stream counts, e.g. "1,32"
}

// lora is the adapters of -lora-rank: alpha 2·rank, all seven targets,
// no dropout.
func (s *benchSettings) lora() policy.LoRAConfig {
	c := policy.DefaultLoRAConfig()
	c.Rank, c.Alpha = s.loraRank, float64(2*s.loraRank)
	return c
}

// benchReport is the JSON object artist bench prints.
type benchReport struct {
	Backend        string `json:"backend"`
	Threads        int    `json:"threads"`
	LibraryThreads int    `json:"library_threads,omitempty"`
	Core           string `json:"core,omitempty"`
	Library        string `json:"library,omitempty"`
	Params         int    `json:"params"`
	Batch          int    `json:"batch"`
	Seq            int    `json:"seq"`
	DecodeBatch    int    `json:"decode_batch"`
	Prompt         int    `json:"prompt"`
	NewTokens      int    `json:"new_tokens"`
	Steps          int    `json:"steps"`
	MicroBatch     int    `json:"micro_batch,omitempty"`
	Recompute      bool   `json:"recompute,omitempty"`
	LoRARank       int    `json:"lora_rank,omitempty"`
	ReferenceDType string `json:"reference_dtype,omitempty"`
	// Medians over Steps repetitions.
	TrainStepS         float64 `json:"train_step_s"`
	TrainTokensPerS    float64 `json:"train_tokens_per_s"`
	PrefillTokensPerS  float64 `json:"prefill_tokens_per_s"`
	DecodeTokensPerS   float64 `json:"decode_tokens_per_s"`
	PeakRSSMiB         float64 `json:"peak_rss_mib"`
	BackendDescription string  `json:"backend_description"`
	// Phases is the -grpo report, in order; the medians above are then
	// not measured.
	Phases []benchPhase `json:"phases,omitempty"`
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s benchSettings
	s.register(fs)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if s.allreduce && s.floats > 0 {
		return benchAllReduce(s.floats, s, stdout)
	}
	if err := s.validate(); err != nil {
		fmt.Fprintf(stderr, "artist bench: %v\n", err)
		return errUsage
	}
	stopProfile, err := startCPUProfile(s.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if s.serve {
		return benchServe(ctx, s, stdout, stderr)
	}
	sel, err := policy.DefaultBackend()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "artist bench: backend %v\n", sel)
	if !s.allreduce {
		if err := s.checkPlan(stderr); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewSource(s.seed))
	began := time.Now()
	m, err := s.model(rng)
	if err != nil {
		return err
	}
	if s.allreduce {
		return benchAllReduce(m.NumParams(), s, stdout)
	}
	if s.loraRank > 0 {
		if err := m.AttachLoRA(s.lora(), rng); err != nil {
			return err
		}
	}
	m.SetRecompute(s.recompute)
	if need := max(s.seq, s.prompt+s.newTokens); need > m.Config.MaxPositionEmbeddings {
		return fmt.Errorf("the model holds %d positions (max_position_embeddings) but the run needs %d: lower -seq, -prompt or -new-tokens", m.Config.MaxPositionEmbeddings, need)
	}
	rep, err := s.measure(m, sel, rng, began)
	if err != nil {
		return err
	}
	return benchPrint(stdout, rep)
}

// register defines the flags of artist bench on fs.
func (s *benchSettings) register(fs *flag.FlagSet) {
	fs.StringVar(&s.checkpoint, "checkpoint", "", "time the model in checkpoint `DIR`")
	fs.StringVar(&s.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole bench to `FILE` (for go tool pprof)")
	fs.StringVar(&s.modelConfig, "model-config", "", "time a model with random weights sized by this HuggingFace `config.json`")
	fs.IntVar(&s.batch, "batch", 8, "training sequences per step")
	fs.IntVar(&s.seq, "seq", 128, "tokens per training sequence")
	fs.IntVar(&s.decodeBatch, "decode-batch", 0, "sequences decoded together (default -batch)")
	fs.IntVar(&s.prompt, "prompt", 0, "prompt tokens per decoded sequence, fed in one step (default -seq)")
	fs.IntVar(&s.newTokens, "new-tokens", 32, "tokens decoded per sequence after the prompt")
	fs.IntVar(&s.steps, "steps", 3, "timed repetitions of each measurement (the median is reported)")
	fs.IntVar(&s.warmup, "warmup", 1, "untimed training steps first (the first compiles the graph)")
	fs.Int64Var(&s.seed, "seed", 1, "seed of the random weights and tokens")
	fs.BoolVar(&s.grpo, "grpo", false, "instead, time one GRPO-shaped step phase by phase (rollout of -decode-batch x -new-tokens, reference log-probs, update) with the peak RSS after each")
	fs.BoolVar(&s.allreduce, "allreduce", false, "instead, under mpirun -np N: time the all-reduce of the model's gradient (float32, one per weight) against a copy of the same bytes")
	fs.IntVar(&s.floats, "floats", 0, "with -allreduce: all-reduce this many float32 values instead of a model's gradient")
	fs.IntVar(&s.loraRank, "lora-rank", 0, "train LoRA adapters of this rank (alpha 2·rank, targets q, k, v, o, gate, up, down) on frozen weights instead of the full weights; with -grpo the reference log-probs are the base's")
	fs.IntVar(&s.microBatch, "micro-batch", 0, "with -grpo: back-propagate the update in passes of at most this many sequences, as grpo.micro_batch does (0: all at once)")
	fs.StringVar(&s.referenceDType, "reference-dtype", "", "with -grpo: score the reference log-probs with a frozen copy of the weights in f32 or bf16 (its decoder-layer linear weights), as a full-weights run with grpo.beta > 0 holds one (model.reference_dtype); empty: the model itself, no copy")
	fs.BoolVar(&s.recompute, "recompute", false, "recompute each decoder block's values in the backward pass instead of keeping them, as model.recompute does")
	fs.BoolVar(&s.force, "force", false, "run even when the memory plan exceeds the memory available")
	fs.BoolVar(&s.serve, "serve", false, "instead, time artist serve on -checkpoint: aggregate completion tokens/s with -streams concurrent clients, each sending -steps completions of a -prompt token prompt and up to -new-tokens tokens")
	fs.StringVar(&s.streams, "streams", "1,32", "with -serve: the numbers of concurrent streams to time, comma-separated")
}

// measure times m as s says: the -grpo phases, or the training step,
// prefill and decode, with the peak RSS after.
func (s benchSettings) measure(m *policy.Model, sel backend.Selection, rng *rand.Rand, began time.Time) (benchReport, error) {
	info := m.Backend().Info()
	rep := benchReport{Backend: info.Name, Threads: info.Threads, LibraryThreads: info.LibraryThreads,
		Core: info.Core, Library: info.Library, Params: m.NumParams(), Batch: s.batch, Seq: s.seq,
		DecodeBatch: s.decodeBatch, Prompt: s.prompt, NewTokens: s.newTokens, Steps: s.steps,
		LoRARank: s.loraRank, MicroBatch: s.microBatch, Recompute: s.recompute, ReferenceDType: s.referenceDType, BackendDescription: sel.String()}
	var err error
	if s.grpo {
		if rep.Phases, err = benchGRPO(m, s, rng, began); err != nil {
			return benchReport{}, err
		}
		rep.PeakRSSMiB = benchRound(sysmem.PeakRSSMiB(), 1)
		return rep, nil
	}
	if rep.TrainStepS, err = benchTrain(m, s, rng); err != nil {
		return benchReport{}, err
	}
	prefill, decode, err := benchDecode(m, s, rng)
	if err != nil {
		return benchReport{}, err
	}
	rep.TrainTokensPerS = benchRound(float64(s.batch*s.seq)/rep.TrainStepS, 1)
	rep.PrefillTokensPerS = benchRound(float64(s.decodeBatch*s.prompt)/prefill, 1)
	rep.DecodeTokensPerS = benchRound(float64(s.decodeBatch*s.newTokens)/decode, 1)
	rep.TrainStepS = benchRound(rep.TrainStepS, 4)
	rep.PeakRSSMiB = benchRound(sysmem.PeakRSSMiB(), 1)
	return rep, nil
}

func benchPrint(w io.Writer, rep benchReport) error { return benchPrintJSON(w, rep) }

// benchPrintJSON prints v as one line of JSON.
func benchPrintJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// validate fills the defaults that depend on other flags and names the
// first bad flag.
func (s *benchSettings) validate() error {
	if (s.checkpoint == "") == (s.modelConfig == "") {
		return errors.New("give exactly one of -checkpoint DIR and -model-config FILE")
	}
	if s.decodeBatch == 0 {
		s.decodeBatch = s.batch
	}
	if s.prompt == 0 {
		s.prompt = s.seq
	}
	if s.referenceDType != "" && s.referenceDType != "f32" && s.referenceDType != "bf16" {
		return fmt.Errorf("-reference-dtype is %q; use f32, bf16 or leave it empty (the model itself is the reference)", s.referenceDType)
	}
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{{"batch", s.batch, 1}, {"seq", s.seq, 2}, {"decode-batch", s.decodeBatch, 1}, {"prompt", s.prompt, 1},
		{"new-tokens", s.newTokens, 1}, {"steps", s.steps, 1}, {"warmup", s.warmup, 0}, {"lora-rank", s.loraRank, 0}, {"micro-batch", s.microBatch, 0}} {
		if f.v < f.min {
			return fmt.Errorf("-%s is %d; it must be at least %d", f.name, f.v, f.min)
		}
	}
	return nil
}

// checkPlan prints the memory plan of the benchmark, from the model's
// config.json alone, and refuses one that does not fit unless -force.
func (s *benchSettings) checkPlan(w io.Writer) error {
	var cfg policy.Config
	if s.checkpoint != "" {
		dir, err := checkpoint.Resolve(s.checkpoint, io.Discard)
		if err != nil {
			return err
		}
		if cfg, err = policy.ReadConfig(dir); err != nil {
			return err
		}
	} else {
		b, err := os.ReadFile(s.modelConfig)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return fmt.Errorf("%s: %w", s.modelConfig, err)
		}
	}
	run := memplan.Run{Train: true, GraphSeqs: s.batch, GraphLen: s.seq,
		DecodeSeqs: s.decodeBatch, DecodeLen: s.prompt + s.newTokens, Recompute: s.recompute}
	if s.loraRank > 0 {
		run.LoRA = s.lora()
	}
	if s.grpo { // the reference log-probs reuse the model unless -reference-dtype
		run.GraphSeqs, run.GraphLen = s.decodeBatch, s.prompt+s.newTokens
		if s.microBatch > 0 {
			run.GraphSeqs = min(s.microBatch, s.decodeBatch)
		}
	}
	plan := memplan.Estimate(cfg, run)
	if s.grpo && s.referenceDType != "" { // a copy even with LoRA, whose runs use the base
		name := "reference model"
		if s.referenceDType == "bf16" {
			name += " (bf16 layers)"
		}
		plan.Terms = append(plan.Terms, memplan.Term{Name: name, Bytes: memplan.ReferenceBytes(cfg, s.referenceDType == "bf16")})
	}
	return checkPlan(w, plan, s.force)
}

// model loads the checkpoint, or builds the configured model with random
// weights.
func (s *benchSettings) model(rng *rand.Rand) (*policy.Model, error) {
	if s.checkpoint != "" {
		dir, err := checkpoint.Resolve(s.checkpoint, os.Stderr)
		if err != nil {
			return nil, err
		}
		return policy.LoadModel(dir)
	}
	b, err := os.ReadFile(s.modelConfig)
	if err != nil {
		return nil, err
	}
	var cfg policy.Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", s.modelConfig, err)
	}
	m, err := policy.New(cfg, rng)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.modelConfig, err)
	}
	return m, nil
}

// benchTrain times training steps (ZeroGrad, Backward of the token-mean
// loss, AdamW with the default settings) and returns the median seconds.
func benchTrain(m *policy.Model, s benchSettings, rng *rand.Rand) (float64, error) {
	seqs := benchTokens(rng, s.batch, s.seq, m.Config.VocabSize)
	coef := make([][]float32, len(seqs))
	for i := range coef {
		coef[i] = make([]float32, s.seq)
		for t := 1; t < s.seq; t++ {
			coef[i][t] = -1 / float32(s.batch*(s.seq-1))
		}
	}
	opt := trainer.NewAdamW(m.Backend(), m.TrainParams(), trainer.DefaultAdamWConfig())
	var times []float64
	for i := range s.warmup + s.steps {
		start := time.Now()
		m.ZeroGrad()
		if _, err := m.Backward(seqs, coef); err != nil {
			return 0, err
		}
		if _, err := opt.Step(1e-5); err != nil {
			return 0, err
		}
		if i >= s.warmup {
			times = append(times, time.Since(start).Seconds())
		}
	}
	return benchMedian(times), nil
}

// benchDecode times greedy decoding with the key/value cache: the prompts
// in one step, then one token per sequence per step. It returns the
// median seconds of the prompt step and of the decoding steps.
func benchDecode(m *policy.Model, s benchSettings, rng *rand.Rand) (prefill, decode float64, err error) {
	prompts := benchTokens(rng, s.decodeBatch, s.prompt, m.Config.VocabSize)
	var pre, dec []float64
	for range s.steps {
		sess := m.NewSession(s.decodeBatch, s.prompt+s.newTokens)
		start := time.Now()
		logits, err := sess.Step(prompts)
		if err != nil {
			return 0, 0, err
		}
		pre = append(pre, time.Since(start).Seconds())
		start = time.Now()
		next := make([][]int, s.decodeBatch)
		for range s.newTokens {
			for i, row := range logits {
				next[i] = []int{benchArgmax(row)}
			}
			if logits, err = sess.Step(next); err != nil {
				return 0, 0, err
			}
		}
		dec = append(dec, time.Since(start).Seconds())
		sess.Close()
	}
	return benchMedian(pre), benchMedian(dec), nil
}

func benchTokens(rng *rand.Rand, n, T, V int) [][]int {
	rows := make([][]int, n)
	for i := range rows {
		rows[i] = make([]int, T)
		for t := range rows[i] {
			rows[i][t] = rng.Intn(V)
		}
	}
	return rows
}

func benchArgmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

func benchMedian(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// benchRound rounds x to the given decimals.
func benchRound(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}
