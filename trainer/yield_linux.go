package trainer

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// updateNice is how much lower than the process's the priority of the
// thread that runs the update is while rollouts overlap it.
const updateNice = 10

// lowerThreadPriority locks the calling goroutine to its thread and
// lowers that thread's priority by updateNice (Linux schedules threads
// one by one). The thread stays locked: when the goroutine ends, Go ends
// the thread with it, so no other goroutine ever runs at the lowered
// priority. It reports whether the priority was lowered.
func lowerThreadPriority() bool {
	runtime.LockOSThread()
	tid := unix.Gettid()
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, tid) // 20 − nice
	if err != nil {
		return false
	}
	return unix.Setpriority(unix.PRIO_PROCESS, tid, min(19, 20-raw+updateNice)) == nil
}
