package sandbox

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/traefik/yaegi/interp"

	"github.com/artist-rl/artist/envs"
)

// Config sets the limits of one call. The zero value is not valid; start
// from DefaultConfig.
type Config struct {
	// Timeout is the wall-clock limit of one call, compile and run together.
	// Default 2s.
	Timeout time.Duration `yaml:"timeout"`
	// MaxOutput is the most bytes of printed output a result carries; the
	// rest is dropped and the output ends with TruncatedMarker. Default 4096.
	MaxOutput int `yaml:"max_output"`
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{Timeout: 2 * time.Second, MaxOutput: 4096}
}

// Validate reports the first invalid field, naming its key and the fix.
func (c Config) Validate() error {
	if c.Timeout <= 0 {
		return fmt.Errorf("sandbox: timeout must be positive, got %v; set it to a duration such as 2s", c.Timeout)
	}
	if c.MaxOutput < 1 {
		return fmt.Errorf("sandbox: max_output must be at least 1 byte, got %d; the default is 4096", c.MaxOutput)
	}
	return nil
}

// TruncatedMarker ends an output that was cut at Config.MaxOutput bytes.
const TruncatedMarker = "...[truncated]"

// EmptyOutput is the Output of a call that ran and printed nothing.
const EmptyOutput = "(no output: print the result with fmt.Println)"

// maxMessage bounds the length of an error line shown to the policy.
const maxMessage = 200

// noGoPath is the GOPATH the interpreter sees. Sources are read from an
// empty filesystem, so no import can resolve to source code on disk.
const noGoPath = "/nonexistent"

// Sandbox runs Go code. It implements envs.Tool and is safe for concurrent
// use: every call gets its own interpreter.
type Sandbox struct {
	cfg Config
}

var _ envs.Tool = (*Sandbox)(nil)

// New returns a Sandbox with the limits of cfg, or an error when cfg is
// invalid.
func New(cfg Config) (*Sandbox, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Sandbox{cfg: cfg}, nil
}

// Call runs input and reports what it printed. It never panics and returns
// within the configured timeout plus the interpreter's setup time. Outcomes:
// StatusOK with the printed text; StatusEmpty when nothing was printed;
// StatusError for a refused import or statement, a compile error or a panic,
// with a one-line Output starting "error: " and the full message in Error;
// StatusTimeout when the deadline passed. When ctx ends first, the result is
// StatusError.
func (s *Sandbox) Call(ctx context.Context, input string) (res envs.Result) {
	defer func() {
		if r := recover(); r != nil {
			res = errorResult(fmt.Errorf("sandbox: interpreter panic: %v", r))
		}
	}()
	src, err := parseSource(input)
	if err != nil {
		return errorResult(err)
	}
	runCtx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	stdout := &cappedWriter{limit: s.cfg.MaxOutput}
	stderr := &cappedWriter{limit: s.cfg.MaxOutput}
	err = run(runCtx, src, stdout, stderr)
	switch {
	case err != nil && ctx.Err() != nil:
		return envs.Result{Status: envs.StatusError, Output: "error: call canceled", Error: ctx.Err().Error()}
	case err != nil && runCtx.Err() != nil:
		msg := fmt.Sprintf("timeout after %v", s.cfg.Timeout)
		return envs.Result{Status: envs.StatusTimeout, Output: "error: " + msg, Error: msg}
	case err != nil:
		if e := stderr.String(); e != "" {
			err = fmt.Errorf("%w\n%s", err, e)
		}
		return errorResult(err)
	}
	out, truncated := stdout.Result()
	switch {
	case truncated:
		return envs.Result{Status: envs.StatusOK, Output: out + TruncatedMarker}
	case out == "":
		return envs.Result{Status: envs.StatusEmpty, Output: EmptyOutput}
	}
	return envs.Result{Status: envs.StatusOK, Output: out}
}

// run evaluates src in a fresh interpreter whose output goes to stdout and
// stderr.
func run(ctx context.Context, src source, stdout, stderr *cappedWriter) error {
	in := interp.New(interp.Options{
		GoPath:               noGoPath,
		Stdin:                strings.NewReader(""),
		Stdout:               stdout,
		Stderr:               stderr,
		Args:                 []string{"main"},
		Env:                  []string{},
		SourcecodeFilesystem: fstest.MapFS{},
	})
	if err := in.Use(symbols()); err != nil {
		return fmt.Errorf("sandbox: load symbols: %w", err)
	}
	if err := in.Use(printExports(stdout)); err != nil {
		return fmt.Errorf("sandbox: load symbols: %w", err)
	}
	chunks := src.chunks
	if pre := preImports(src.imports); !src.program && pre != "" {
		chunks = append([]string{pre}, chunks...)
	}
	for _, c := range chunks {
		if _, err := in.EvalWithContext(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// position matches the file:line:column prefixes of yaegi's messages, which
// refer to the wrapped source rather than the input.
var position = regexp.MustCompile(`^(?:[\w.]*:)?\d+:\d+: `)

// errorResult turns err into a StatusError result whose Output is its first
// line, without source positions, at most maxMessage bytes.
func errorResult(err error) envs.Result {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	msg = position.ReplaceAllString(msg, "")
	var p interp.Panic
	if errors.As(err, &p) {
		msg = "panic: " + msg
	}
	if len(msg) > maxMessage {
		msg = truncate(msg, maxMessage) + "..."
	}
	return envs.Result{Status: envs.StatusError, Output: "error: " + msg, Error: err.Error()}
}

// dropPartialRune removes an incomplete UTF-8 sequence at the end of s.
func dropPartialRune(s string) string {
	for i := 1; i < utf8.UTFMax && i <= len(s); i++ {
		if utf8.RuneStart(s[len(s)-i]) {
			if !utf8.FullRuneInString(s[len(s)-i:]) {
				return s[:len(s)-i]
			}
			return s
		}
	}
	return s
}

// truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cappedWriter keeps the first limit bytes written to it and counts the
// rest. Writes always succeed, so interpreted code never sees an error.
type cappedWriter struct {
	mu        sync.Mutex
	limit     int
	buf       strings.Builder
	truncated bool
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	if room := w.limit - w.buf.Len(); n > room {
		w.truncated = true
		p = p[:max(room, 0)]
	}
	w.buf.Write(p)
	return n, nil
}

// Result returns the kept text and whether bytes were dropped. A cut output
// loses the incomplete UTF-8 sequence it may end with.
func (w *cappedWriter) Result() (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.buf.String()
	if w.truncated {
		s = dropPartialRune(s)
	}
	return s, w.truncated
}

func (w *cappedWriter) String() string {
	s, _ := w.Result()
	return s
}
