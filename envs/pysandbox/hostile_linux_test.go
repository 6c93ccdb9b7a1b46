package pysandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
)

// descendants returns the ids of the processes descended from this one,
// zombies included.
func descendants(t testing.TB) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// After the command name, in parentheses: the state, then the
		// parent's id.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	for pid := range parent {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == os.Getpid() {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// TestHostile runs each hostile program in each kind of runner (fresh
// per call, in a plain worker unless the program names a library; fresh
// per call, every call in a full worker; Runtime.Reuse) and checks that
// it is contained: the expected outcome within the timeout and a margin,
// nothing of the host's environment or files visible, no file created,
// the sandbox still answering, and no process left behind after Close.
func TestHostile(t *testing.T) {
	for _, mode := range []struct {
		name            string
		fullOnly, reuse bool
		jails           int // jails per worker slot
	}{{"fresh", false, false, 2}, {"full", true, false, 1}, {"reuse", false, true, 1}} {
		t.Run(mode.name, func(t *testing.T) { testHostile(t, mode.fullOnly, mode.reuse, mode.jails) })
	}
}

func testHostile(t *testing.T, fullOnly, reuse bool, jails int) {
	t.Setenv("ARTIST_SECRET", "hunter2")
	dir := t.TempDir()
	target := filepath.Join(dir, "pwned")
	// A descriptor this process holds without close-on-exec: the jail
	// must not inherit it.
	fd, err := syscall.Open(filepath.Join(dir, "held"), syscall.O_CREAT|syscall.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	const timeout = 3 * time.Second
	const workers = 2
	cfg := DefaultConfig()
	cfg.Limits = sandbox.Config{Timeout: timeout, MaxOutput: 4096, Memory: 64 << 20, Workers: workers}
	cfg.Runtime.Reuse, cfg.fullOnly = reuse, fullOnly
	s := newSandbox(t, cfg)
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			input := tc.input
			if strings.Contains(input, "%[") {
				input = fmt.Sprintf(input, target, dir)
			}
			start := time.Now()
			got := s.Run(context.Background(), input)
			if elapsed := time.Since(start); elapsed > timeout+2*time.Second {
				t.Errorf("answered after %v, more than the timeout plus 2s", elapsed)
			}
			if got.Status != tc.status || !strings.HasPrefix(got.Message, tc.message) || len(got.Message) > maxMessage+3 {
				t.Errorf("Run = %s %q (%.300q), want %s %q", got.Status, got.Message, got.Error, tc.status, tc.message)
			}
			if tc.stdout != "" && got.Stdout != tc.stdout {
				t.Errorf("Run printed %q, want %q", got.Stdout, tc.stdout)
			}
			for _, leak := range []string{"hunter2", dir} {
				if strings.Contains(got.Stdout, leak) {
					t.Errorf("output %q shows %q", got.Stdout, leak)
				}
			}
			if r := s.Call(context.Background(), "print(6 * 7)"); r.Output != "42\n" {
				t.Errorf("the next call = %+v, want 42", r)
			}
			// Per jail: bubblewrap, the driver, two spare runners, the
			// runner kept for pure calls and the last call's, killed but
			// perhaps not yet reaped.
			if d := descendants(t); len(d) > 6*workers*jails {
				t.Errorf("%d descendant processes %v, want at most %d", len(d), d, 6*workers*jails)
			}
			if _, err := os.Stat(target); err == nil {
				t.Errorf("%s was created outside the sandbox", target)
			}
		})
	}
	s.Close()
	if d := descendants(t); len(d) != 0 {
		t.Errorf("descendant processes %v after Close, want none", d)
	}
}

// TestJailMissing checks that New fails, saying why, when the jail cannot
// be built.
func TestJailMissing(t *testing.T) {
	for i, rt := range []Runtime{
		{Interpreter: "/usr/bin/python3", Bwrap: "no-such-bwrap"},
		{Interpreter: "/usr/bin/no-such-python", Bwrap: "bwrap"},
		{Interpreter: "/usr/bin/python3", Bwrap: "/bin/false"},
	} {
		cfg := DefaultConfig()
		cfg.Runtime = rt
		s, err := New(cfg)
		if err == nil {
			s.Close()
			t.Errorf("case %d: New(%+v) succeeded, want an error", i, rt)
			continue
		}
		if !strings.HasPrefix(err.Error(), "pysandbox: ") {
			t.Errorf("case %d: error %q lacks the package prefix", i, err)
		}
	}
	if d := descendants(t); len(d) != 0 {
		t.Errorf("descendant processes %v after failed starts, want none", d)
	}
}

// TestKillMidCall closes the sandbox while calls run and checks that every
// process is gone afterwards.
func TestKillMidCall(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.Workers, cfg.Limits.Stateful = 2, true
	s := newSandbox(t, cfg)
	ss := s.Session()
	ss.Call(context.Background(), "x = 1")
	done := make(chan string, 2)
	for range 2 {
		go func() { done <- s.Run(context.Background(), "while True:\n    pass").Message }()
	}
	time.Sleep(300 * time.Millisecond)
	s.Close()
	for range 2 {
		if msg := <-done; msg != "sandbox closed" {
			t.Errorf("interrupted call answered %q, want sandbox closed", msg)
		}
	}
	if d := descendants(t); len(d) != 0 {
		t.Errorf("descendant processes %v after Close, want none", d)
	}
}

// TestNoSIGIOToOthers checks that a call cannot end another trajectory's
// session runner by naming it the owner of a descriptor (F_SETOWN with
// O_ASYNC makes the kernel send SIGIO, whose default is to terminate,
// to the owner as the driver reads): the session keeps its globals.
func TestNoSIGIOToOthers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.Workers, cfg.Limits.Stateful = 1, true
	s := newSandbox(t, cfg)
	victim, attacker := s.Session(), s.Session()
	defer victim.Close()
	defer attacker.Close()
	r := victim.Run(context.Background(), "import os\nx = 1\nprint(os.getpid())")
	pid := strings.TrimSpace(r.Stdout)
	if r.Status != envs.StatusOK || pid == "" {
		t.Fatalf("victim = %+v", r)
	}
	attack := "import fcntl, os\nfcntl.fcntl(1, fcntl.F_SETOWN, " + pid + ")\n" +
		"fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_ASYNC)\n" +
		"for i in range(100):\n    print('x' * 100, flush=True)\n"
	if r := attacker.Run(context.Background(), attack); !strings.HasPrefix(r.Message, "PermissionError") {
		t.Errorf("attacker = %s %q, want PermissionError", r.Status, r.Message)
	}
	if r := victim.Run(context.Background(), "print(x)"); r.Status != envs.StatusOK || r.Stdout != "1\n" {
		t.Errorf("victim after the attack = %s %q %q, want 1", r.Status, r.Stdout, r.Message)
	}
}
