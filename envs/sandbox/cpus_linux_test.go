package sandbox

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// firstCPU is the lowest-numbered CPU this process may run on, and the set.
func firstCPU(t *testing.T) (int, unix.CPUSet) {
	t.Helper()
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil {
		t.Fatal(err)
	}
	for c := range 1024 {
		if mine.IsSet(c) {
			return c, mine
		}
	}
	t.Fatal("no CPU in this process's affinity mask")
	return 0, mine
}

// TestWorkerCPUs checks that a worker started with cpus runs every thread
// on those CPUs only, and that a CPU the process may not use is refused
// at start with an error naming the setting.
func TestWorkerCPUs(t *testing.T) {
	first, mine := firstCPU(t)
	p, err := startProc(context.Background(), hello{MaxOutput: 100, Memory: defaultMemory, CPUs: []int{first}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	pid := p.Pid()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		var got unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &got); err != nil {
			t.Fatal(err)
		}
		if got.Count() != 1 || !got.IsSet(first) {
			t.Errorf("worker thread %d runs on %d CPUs (CPU %d set: %v), want CPU %d only", tid, got.Count(), first, got.IsSet(first), first)
		}
	}

	banned := 1023
	for mine.IsSet(banned) {
		banned--
	}
	_, err = startProc(context.Background(), hello{MaxOutput: 100, Memory: defaultMemory, CPUs: []int{banned}})
	if want := fmt.Sprintf("sandbox: cpus [%d]", banned); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a worker on CPU %d started with error %v, want one naming %s", banned, err, want)
	}
}

// TestSandboxCPUs runs a program in a sandbox whose workers are held to
// one CPU: the setting reaches the workers and they still run code.
func TestSandboxCPUs(t *testing.T) {
	cfg := DefaultConfig()
	first, _ := firstCPU(t)
	cfg.CPUs = []int{first}
	s := newSandbox(t, cfg)
	if got := s.Call(context.Background(), "package main\nimport \"fmt\"\nfunc main() { fmt.Println(6 * 7) }\n"); got.Output != "42\n" {
		t.Errorf("output %q (status %v), want 42", got.Output, got.Status)
	}
}
