//go:build linux && (amd64 || arm64)

package pysandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// tmpfsSize is the size of a jail's scratch folder, /tmp.
const tmpfsSize = 32 << 20

// nobody is the user a jail runs as when the parent runs as root: root's
// processes are exempt from RLIMIT_NPROC.
const nobody = 65534

// jail builds the bubblewrap command line of a worker.
type jail struct {
	bwrap, interpreter string
	jailFilter         []byte
	runnerFilter       []byte
	pidInsn            int
}

// newJail checks that the programs of rt exist and assembles the filters.
func newJail(rt Runtime) (*jail, error) {
	bwrap, err := exec.LookPath(rt.Bwrap)
	if err != nil {
		return nil, fmt.Errorf("pysandbox: bubblewrap: %w (install it: apt-get install bubblewrap)", err)
	}
	if _, err := os.Stat(rt.Interpreter); err != nil {
		return nil, fmt.Errorf("pysandbox: interpreter: %w (install it: apt-get install python3)", err)
	}
	j := &jail{bwrap: bwrap, interpreter: rt.Interpreter, jailFilter: jailFilter()}
	j.runnerFilter, j.pidInsn = runnerFilter()
	return j, nil
}

// command returns the bubblewrap command of a new jail and the pipe its
// jail filter is read from (the jail's fd 5); the caller adds the
// driver's pipes as fds 3 and 4 and closes the filter once it started.
func (j *jail) command() (*exec.Cmd, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	_, err = w.Write(j.jailFilter) // far less than a pipe holds
	w.Close()
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	cmd := &exec.Cmd{
		Path:        j.bwrap,
		Args:        append([]string{"bwrap"}, j.args()...),
		Env:         []string{},
		Dir:         "/",
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	return cmd, r, nil
}

// args are bubblewrap's options: new user, PID, network, IPC, UTS and
// cgroup namespaces (no network at all, loopback included); no
// capabilities; an empty environment; a read-only root holding /usr, the
// links to it, the dynamic linker's cache and the alternatives links of
// the libraries, a private /proc and /dev, and a private tmpfs /tmp; the
// jail filter; and the driver as process 1, dying with its parent.
func (j *jail) args() []string {
	a := []string{
		"--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--as-pid-1", "--cap-drop", "ALL", "--hostname", "sandbox",
		"--clearenv",
		"--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8",
		"--setenv", "PYTHONHASHSEED", "0", "--setenv", "OPENBLAS_NUM_THREADS", "1",
		"--setenv", "OMP_NUM_THREADS", "1", "--setenv", "MKL_NUM_THREADS", "1",
		"--ro-bind", "/usr", "/usr",
	}
	for _, dir := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if target, err := os.Readlink(dir); err == nil {
			a = append(a, "--symlink", target, dir)
		} else if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			a = append(a, "--ro-bind", dir, dir)
		}
	}
	for _, f := range []string{"/etc/ld.so.cache", "/etc/alternatives"} {
		a = append(a, "--ro-bind-try", f, f)
	}
	a = append(a,
		"--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
		"--size", fmt.Sprint(tmpfsSize), "--tmpfs", "/tmp",
		"--remount-ro", "/", "--chdir", "/tmp",
		"--seccomp", "5",
		filepath.Clean(j.interpreter), "-I", "-B", "-c", program,
	)
	return a
}
