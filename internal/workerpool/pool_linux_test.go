package workerpool

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/frame"
)

// workerEnv makes the test binary serve as a worker (testWorker).
const workerEnv = "WORKERPOOL_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		os.Exit(testWorker(os.NewFile(3, "requests"), os.NewFile(4, "replies")))
	}
	os.Exit(m.Run())
}

// testWorker answers each request with its process id as the output; code
// "retire" retires the worker, "hang" never answers, "skew" answers with
// the wrong sequence number, "crash" exits.
func testWorker(in io.Reader, out io.Writer) int {
	var h Hello
	if frame.Read(in, &h) != nil || frame.Write(out, &Ready{Libraries: []string{"test"}}) != nil {
		return 3
	}
	for {
		var req Request
		if frame.Read(in, &req) != nil {
			return 0
		}
		rep := Reply{Seq: req.Seq, Status: envs.StatusOK, Stdout: strconv.Itoa(os.Getpid()), Retire: req.Code == "retire"}
		switch req.Code {
		case "hang":
			time.Sleep(time.Minute)
		case "skew":
			rep.Seq++
		case "crash":
			os.Stderr.WriteString("crashed")
			return 2
		}
		if frame.Write(out, &rep) != nil || rep.Retire {
			return 0
		}
	}
}

func startTestWorker(ctx context.Context) (*Proc, error) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p, err := Start(cmd, 1024)
	if err != nil {
		return nil, err
	}
	var r Ready
	if err := p.Handshake(ctx, &Hello{MaxOutput: 10}, &r, 5*time.Second); err != nil {
		return nil, err
	}
	if len(r.Libraries) != 1 {
		p.Kill()
		return nil, errors.New("ready lost its libraries")
	}
	return p, nil
}

func newTestPool(t *testing.T, workers int) *Pool {
	p := New(Config{
		Name:      "test",
		Workers:   workers,
		Start:     startTestWorker,
		KillGrace: 100 * time.Millisecond,
		Explain: func(pr *Proc, err error) Reply {
			pr.Reap(time.Second)
			return Reply{Status: envs.StatusError, Message: "died: " + pr.Stderr(), Err: err.Error()}
		},
	})
	t.Cleanup(p.Close)
	return p
}

// budget gives every call d.
func budget(d time.Duration) func(context.Context) time.Duration {
	return func(context.Context) time.Duration { return d }
}

// TestPoolRun checks replies, worker reuse and replacement, and the
// failures Run reports.
func TestPoolRun(t *testing.T) {
	p := newTestPool(t, 1)
	pids := map[string]string{}
	for i, tc := range []struct{ code, status, message string }{
		{"a", "ok", ""},
		{"b", "ok", ""},
		{"retire", "ok", ""},
		{"c", "ok", ""},
		{"hang", "timeout", "timeout after 300ms"},
		{"skew", "error", "died: "},
		{"crash", "error", "died: crashed"},
		{"d", "ok", ""},
	} {
		rep := p.Run(context.Background(), nil, budget(300*time.Millisecond), Request{Code: tc.code})
		if string(rep.Status) != tc.status || rep.Message != tc.message {
			t.Errorf("call %d (%s) = %+v, want %s %q", i, tc.code, rep, tc.status, tc.message)
		}
		if tc.code == "skew" && !strings.Contains(rep.Err, "test: reply ") {
			t.Errorf("skewed reply: Err = %q", rep.Err)
		}
		pids[tc.code] = rep.Stdout
	}
	if pids["a"] != pids["b"] || pids["b"] != pids["retire"] {
		t.Errorf("workers %v: want a, b and retire on one worker", pids)
	}
	if pids["c"] == pids["retire"] || pids["d"] == pids["c"] {
		t.Errorf("workers %v: want new workers for c and d", pids)
	}
}

// TestPoolClose checks that Close reaps the workers and calls after it
// answer closed.
func TestPoolClose(t *testing.T) {
	p := newTestPool(t, 2)
	if rep := p.Run(context.Background(), nil, budget(time.Second), Request{Code: "a"}); rep.Status != envs.StatusOK {
		t.Fatal(rep)
	}
	pid := p.Pids()[0]
	p.Close()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("worker %d still exists after Close: %v", pid, err)
	}
	rep := p.Run(context.Background(), nil, budget(time.Second), Request{Code: "a"})
	if rep.Message != "sandbox closed" || rep.Err != "test: closed" {
		t.Errorf("Run after Close = %+v", rep)
	}
}

// TestSession checks that a stateful session keeps its slot, that Close
// has the worker drop its state, and that a closed session runs nothing.
func TestSession(t *testing.T) {
	p := newTestPool(t, 2)
	ss := p.NewSession(true)
	var ids []uint64
	var slots []*Slot
	for range 2 {
		if !ss.Do(func(bound **Slot, id uint64) {
			ids = append(ids, id)
			p.Run(context.Background(), bound, budget(time.Second), Request{Session: id, Code: "a"})
			slots = append(slots, *bound)
		}) {
			t.Fatal("Do refused an open session")
		}
	}
	if ids[0] == 0 || ids[0] != ids[1] || slots[0] == nil || slots[0] != slots[1] {
		t.Errorf("ids %v, slots %p %p: want one id and one slot", ids, slots[0], slots[1])
	}
	ss.Close()
	p.mu.Lock()
	drop := slices.Clone(slots[0].drop)
	p.mu.Unlock()
	if !slices.Equal(drop, ids[:1]) {
		t.Errorf("after Close the slot drops %v, want %v", drop, ids[:1])
	}
	if ss.Do(func(**Slot, uint64) { t.Error("Do ran after Close") }) {
		t.Error("Do after Close = true")
	}
	if free := p.NewSession(false); !free.Do(func(bound **Slot, id uint64) {
		if bound != nil || id != 0 {
			t.Errorf("stateless session: bound %p, id %d", bound, id)
		}
	}) {
		t.Error("Do refused a stateless session")
	}
}
