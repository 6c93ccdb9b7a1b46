package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
)

// sandboxResult is the JSON line printed for one file.
type sandboxResult struct {
	File      string      `json:"file"`
	Status    envs.Status `json:"status"`
	Stdout    string      `json:"stdout"`
	Error     string      `json:"error"`
	Truncated bool        `json:"truncated"`
	WallMS    float64     `json:"wall_ms"`
	// Line and Column locate a syntax error in the file (1-based); absent
	// for other results.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// program is one input of `artist sandbox`: its name ("-" for standard
// input) and source.
type program struct{ file, source string }

func runSandbox(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := sandbox.DefaultConfig()
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	timeout := fs.Duration("timeout", def.Timeout, "wall-clock limit of each program")
	memory := fs.Int64("memory", def.Memory, "`BYTES` a program may allocate")
	output := fs.Int("output", def.MaxOutput, "`BYTES` of printed output kept per program")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "programs run at once, each in its own worker process")
	stateful := fs.Bool("stateful", false, "run the files in order in one interpreter: later files see earlier definitions")
	lang := fs.String("lang", "go", "language of the files: go (the yaegi sandbox) or python (jailed python3)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *jobs < 1 {
		fmt.Fprintf(stderr, "artist sandbox: -jobs must be at least 1, got %d\n", *jobs)
		return errUsage
	}
	if *lang != "go" && *lang != "python" {
		fmt.Fprintf(stderr, "artist sandbox: -lang is %q: use go or python\n", *lang)
		return errUsage
	}
	cfg := sandbox.Config{Timeout: *timeout, MaxOutput: *output, Memory: *memory, Workers: *jobs, Stateful: *stateful}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "artist sandbox: %v (set it with -timeout, -output or -memory)\n", err)
		return errUsage
	}
	progs, err := readPrograms(ctx, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "artist sandbox: %v\n", err)
		return errUsage
	}
	s, err := openCodeTool(*lang, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for r := range runPrograms(ctx, s, progs, *stateful, *jobs) {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// readPrograms reads every file before anything runs; "-", or no file at
// all, is one program read from standard input.
func readPrograms(ctx context.Context, files []string) ([]program, error) {
	if len(files) == 0 {
		files = []string{"-"}
	}
	progs := make([]program, len(files))
	stdin := false
	for i, f := range files {
		if f == "-" {
			if stdin {
				return nil, fmt.Errorf("- (standard input) is named twice")
			}
			stdin = true
			b, err := io.ReadAll(stdinOf(ctx))
			if err != nil {
				return nil, fmt.Errorf("read standard input: %w", err)
			}
			progs[i] = program{"-", string(b)}
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		progs[i] = program{f, string(b)}
	}
	return progs, nil
}

// runPrograms runs progs, up to jobs at once, or one after another in one
// session when stateful, and yields their results in the order given, each
// as soon as it and those before it are done.
func runPrograms(ctx context.Context, s langTool, progs []program, stateful bool, jobs int) iter.Seq[sandboxResult] {
	results := make([]chan sandboxResult, len(progs))
	for i := range results {
		results[i] = make(chan sandboxResult, 1)
	}
	run := func(i int, tool interface {
		Run(context.Context, string) sandbox.Outcome
	}) {
		o := tool.Run(ctx, progs[i].source)
		r := sandboxResult{
			File: progs[i].file, Status: o.Status, Stdout: o.Stdout, Error: o.Message,
			Truncated: o.Truncated, WallMS: float64(o.Wall) / float64(time.Millisecond),
		}
		if o.Status == envs.StatusError && s.lang() == "go" {
			if pos, ok := syntaxPosition(progs[i].source); ok {
				r.Line, r.Column = pos.Line, pos.Column
				r.Error = fmt.Sprintf("%d:%d: %s", pos.Line, pos.Column, r.Error)
			}
		}
		results[i] <- r
	}
	go func() {
		if stateful {
			sess := s.session()
			defer sess.Close()
			for i := range progs {
				run(i, sess)
			}
			return
		}
		sem := make(chan struct{}, jobs)
		for i := range progs {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				run(i, s)
			}()
		}
	}()
	return func(yield func(sandboxResult) bool) {
		for _, r := range results {
			if !yield(<-r) {
				return
			}
		}
	}
}
