package sandbox

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing/fstest"
	"unicode/utf8"

	"github.com/traefik/yaegi/interp"
)

// noGoPath is the GOPATH the interpreter sees. Sources are read from an
// empty filesystem, so no import can resolve to source code on disk.
const noGoPath = "/nonexistent"

// machine is one interpreter and the writers its output goes to. Its
// writers are switched per evaluation, so a stateful interpreter can serve
// many calls and a late write from a stopped program goes nowhere.
type machine struct {
	in     *interp.Interpreter
	stdout switchWriter
	stderr switchWriter
	// bound maps the package names imported at top level by earlier
	// evaluations to their paths; nil for a single-use interpreter.
	bound map[string]string
	used  uint64 // when it last ran, on its server's clock
}

// newMachine returns an interpreter that sees only the whitelisted
// packages. A stateful one tracks its imports across evaluations.
func newMachine(stateful bool) (*machine, error) {
	m := &machine{}
	if stateful {
		m.bound = map[string]string{}
	}
	m.in = interp.New(interp.Options{
		GoPath:               noGoPath,
		Stdin:                strings.NewReader(""),
		Stdout:               &m.stdout,
		Stderr:               &m.stderr,
		Args:                 []string{"main"},
		Env:                  []string{},
		SourcecodeFilesystem: fstest.MapFS{},
	})
	if err := m.in.Use(symbols()); err != nil {
		return nil, fmt.Errorf("sandbox: load symbols: %w", err)
	}
	if err := m.in.Use(printExports(&m.stdout)); err != nil {
		return nil, fmt.Errorf("sandbox: load symbols: %w", err)
	}
	return m, nil
}

// eval runs src with its output going to stdout and stderr. Snippets get
// the pre-imported packages that neither they nor an earlier evaluation in
// this interpreter imported, and imports already in effect are dropped.
func (m *machine) eval(ctx context.Context, src source, stdout, stderr *cappedWriter) error {
	m.stdout.set(stdout)
	m.stderr.set(stderr)
	defer m.stdout.set(nil)
	defer m.stderr.set(nil)
	if m.bound != nil {
		src, _ = src.withoutBound(m.bound)
	}
	chunks := src.chunks
	if !src.program {
		own := src.imports
		for _, p := range m.bound {
			own = append(own, p)
		}
		if pre := preImports(own); pre != "" {
			chunks = append([]string{pre}, chunks...)
		}
	}
	for i, c := range chunks {
		_, err := m.in.EvalWithContext(ctx, c)
		if m.bound != nil && !isSyntaxError(err) {
			m.bind(c)
		}
		if err != nil {
			return err
		}
		if (i < len(chunks)-1 || m.bound != nil) && definesMain(c) {
			if _, err := m.in.EvalWithContext(ctx, noMain); err != nil {
				return err
			}
		}
	}
	return nil
}

// noMain replaces a main function that has run. The interpreter runs the
// main function of package main after every evaluation once one is
// defined, so later chunks and calls would run it again.
const noMain = "func main() {}"

// definesMain reports whether chunk declares a function named main.
func definesMain(chunk string) bool {
	lx := lex(chunk)
	for i := 0; i+1 < len(lx); i++ {
		if lx[i].tok == token.FUNC && lx[i+1].tok == token.IDENT && lx[i+1].lit == "main" {
			return true
		}
	}
	return false
}

// bind records the imports of chunk, which the interpreter has processed.
// A name already bound keeps its package: importing another under it
// failed.
func (m *machine) bind(chunk string) {
	lx := lex(chunk)
	for i, l := range lx {
		if l.tok != token.IMPORT {
			continue
		}
		for _, sp := range parseImport(lx[i:]).specs {
			if n := sp.binds(); n != "" && m.bound[n] == "" {
				m.bound[n] = sp.path
			}
		}
	}
}

// isSyntaxError reports whether err comes from parsing, which happens
// before any import takes effect.
func isSyntaxError(err error) bool {
	var list scanner.ErrorList
	var one *scanner.Error
	return errors.As(err, &list) || errors.As(err, &one)
}

// position matches the file:line:column prefixes of yaegi's messages, which
// refer to the wrapped source rather than the input.
var position = regexp.MustCompile(`^(?:[\w.]*:)?\d+:\d+: `)

// errorMessage returns the line of err the policy reads: the first line,
// without source positions, at most maxMessage bytes, marked when the
// program panicked.
func errorMessage(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	msg = position.ReplaceAllString(msg, "")
	var p interp.Panic
	if errors.As(err, &p) {
		msg = "panic: " + msg
	}
	if len(msg) > maxMessage {
		msg = truncate(msg, maxMessage) + "..."
	}
	return msg
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

// switchWriter forwards writes to the current target; with none, writes
// are discarded.
type switchWriter struct{ to atomic.Pointer[cappedWriter] }

func (w *switchWriter) set(c *cappedWriter) { w.to.Store(c) }

func (w *switchWriter) Write(p []byte) (int, error) {
	if c := w.to.Load(); c != nil {
		return c.Write(p)
	}
	return len(p), nil
}

// cappedWriter keeps the first limit bytes written to it and counts the
// rest. Writes always succeed, so interpreted code never sees an error.
// When more than stopAfter bytes have been written in all, stop is called
// once (stopAfter 0: never).
type cappedWriter struct {
	mu        sync.Mutex
	limit     int
	stopAfter int64
	stop      func()
	buf       strings.Builder
	written   int64
	truncated bool
	stopped   bool
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	w.written += int64(n)
	if room := w.limit - w.buf.Len(); n > room {
		w.truncated = true
		p = p[:max(room, 0)]
	}
	w.buf.Write(p)
	if w.stopAfter > 0 && w.written > w.stopAfter && !w.stopped {
		w.stopped = true
		w.stop()
	}
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

// Stopped reports whether the writer called stop.
func (w *cappedWriter) Stopped() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stopped
}

func (w *cappedWriter) String() string {
	s, _ := w.Result()
	return s
}
