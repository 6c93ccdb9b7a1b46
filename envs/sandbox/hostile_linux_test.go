package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/frame"
)

// children returns the ids of the processes whose parent is this process,
// zombies included.
func children(t testing.TB) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// The fields after the command name, which is in parentheses, are
		// the state and the parent's id.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestHostile runs each hostile program and checks that it is contained:
// the expected outcome within the timeout plus one second, no file
// created, the sandbox still answering, and no process left behind.
func TestHostile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "pwned")
	// Long enough that a limit (memory, stack, output) is reached before
	// the deadline on a loaded machine, where a second was not always.
	const timeout = 3 * time.Second
	const workers = 2
	s := newSandbox(t, Config{Timeout: timeout, MaxOutput: 4096, Workers: workers})
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			input := tc.input
			if strings.Contains(input, "%[1]q") {
				input = fmt.Sprintf(input, target)
			}
			start := time.Now()
			got := s.Run(context.Background(), input)
			if elapsed := time.Since(start); elapsed > timeout+time.Second {
				t.Errorf("answered after %v, more than the timeout plus 1s", elapsed)
			}
			// With the race detector a limit may be hit as another one.
			contained := raceEnabled && tc.status == envs.StatusError && got.Status != envs.StatusOK && got.Status != envs.StatusEmpty
			if !contained && (got.Status != tc.status || !strings.HasPrefix(got.Message, tc.message) || len(got.Message) > maxMessage+3) {
				t.Errorf("Run = %s %q (%.200q), want %s %q", got.Status, got.Message, got.Error, tc.status, tc.message)
			}
			if r := s.Call(context.Background(), "fmt.Println(6 * 7)"); r.Output != "42\n" {
				t.Errorf("the next call = %+v, want 42", r)
			}
			if c := children(t); len(c) > workers {
				t.Errorf("%d child processes %v, want at most %d workers", len(c), c, workers)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("files appeared outside the sandbox: %v", entries)
			}
		})
	}
	s.Close()
	if c := children(t); len(c) != 0 {
		t.Errorf("child processes %v after Close, want none", c)
	}
}

// TestProtocolImitation prints what looks like protocol frames: the bytes
// must come back as output, exactly, and the worker must stay in step.
func TestProtocolImitation(t *testing.T) {
	s := newSandbox(t, Config{Timeout: time.Second, MaxOutput: 4096, Workers: 1})
	var fake bytes.Buffer
	_ = frame.Write(&fake, &reply{Status: envs.StatusOK, Stdout: "forged", Retire: true})
	_ = frame.Write(&fake, &ready{Err: "forged"})
	printed := fake.String() + "\x00\x00\x00\xff"
	for i := range 3 {
		got := s.Run(context.Background(), fmt.Sprintf("fmt.Print(%q)\nprintln(%q)", printed, printed))
		if want := printed + printed + "\n"; got.Status != envs.StatusOK || got.Stdout != want {
			t.Errorf("call %d: Run = %s %q, want ok %q", i, got.Status, got.Stdout, want)
		}
	}
	if r := s.Call(context.Background(), "fmt.Println(6 * 7)"); r.Output != "42\n" {
		t.Errorf("the next call = %+v, want 42", r)
	}
}

// TestWorkerEnvironment proves a worker gets none of the caller's
// environment and runs with its own limits.
func TestWorkerEnvironment(t *testing.T) {
	t.Setenv("ARTIST_SECRET", "hunter2")
	p, err := startProc(context.Background(), hello{MaxOutput: 100, Memory: defaultMemory})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	pid := strconv.Itoa(p.Pid())
	env, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
	if err != nil {
		t.Fatal(err)
	}
	vars := strings.Split(strings.TrimRight(string(env), "\x00"), "\x00")
	slices.Sort(vars)
	if want := []string{"ARTIST_SANDBOX_WORKER=v1", "GOMAXPROCS=1", "GOTRACEBACK=none"}; !slices.Equal(vars, want) {
		t.Errorf("worker environment %q, want %q", vars, want)
	}
	limits, err := os.ReadFile(filepath.Join("/proc", pid, "limits"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Max file size             0", "Max core file size        0", "Max open files            16"} {
		if !strings.Contains(string(limits), want) {
			t.Errorf("worker limits lack %q:\n%s", want, limits)
		}
	}
	var rep reply
	if err := p.Exchange(context.Background(), &request{Code: "fmt.Println(1)", Timeout: time.Second}, &rep, time.Now().Add(5*time.Second)); err != nil || rep.Stdout != "1\n" {
		t.Fatalf("call: %+v %v", rep, err)
	}
	limits, _ = os.ReadFile(filepath.Join("/proc", pid, "limits"))
	if cpu := softLimit(string(limits), "Max cpu time"); cpu < 3 || cpu > 10 {
		t.Errorf("worker CPU-time limit %d s after a 1s call, want about 3", cpu)
	}
	as := softLimit(string(limits), "Max address space")
	if as < defaultMemory || as > 4<<30 {
		t.Errorf("worker address-space limit %d, want the default allowance above its start size", as)
	}
}

// softLimit returns the soft limit on the line of /proc/PID/limits that
// starts with name, or -1.
func softLimit(limits, name string) int64 {
	for line := range strings.Lines(limits) {
		if rest, ok := strings.CutPrefix(line, name); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				if v, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return v
				}
			}
		}
	}
	return -1
}

// orphanEnv makes TestWorkersDieWithParent's stand-in parent start a worker,
// print its id and wait to be killed.
const orphanEnv = "SANDBOX_TEST_ORPHAN_PARENT"

// TestWorkersDieWithParent kills a process that holds a busy worker and
// checks that the worker does not outlive it.
func TestWorkersDieWithParent(t *testing.T) {
	if os.Getenv(orphanEnv) == "1" {
		s, err := New(Config{Timeout: time.Minute, MaxOutput: 100, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		s.Call(context.Background(), "fmt.Println(1)")
		fmt.Println(s.pool.Pids()[0])
		s.Call(context.Background(), "for {}") // busy until killed
		return
	}
	parent := exec.Command(os.Args[0], "-test.run=^TestWorkersDieWithParent$")
	parent.Env = append(os.Environ(), orphanEnv+"=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		parent.Process.Kill()
		parent.Wait()
		t.Fatalf("stand-in parent printed %q: %v %v", line, err, perr)
	}
	parent.Process.Kill()
	parent.Wait()
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("worker %d still runs after its parent was killed", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
