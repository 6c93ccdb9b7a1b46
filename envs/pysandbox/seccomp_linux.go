//go:build linux && (amd64 || arm64)

package pysandbox

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// Two seccomp filters contain a jail. The jail filter, which bubblewrap
// installs before it starts the interpreter, holds for every process in
// the jail: it denies what could reach past the namespaces (sockets of
// every family, ptrace, mounts, new namespaces, kernel keyrings, BPF,
// io_uring, module loading, kexec and the like). The runner filter, which
// a runner installs on itself after the driver forked it and before any
// model-written code runs, adds what only the driver may do: start
// processes, replace its program, and signal another process (directly,
// or by making itself the owner's agent: F_SETOWN names the process the
// kernel sends SIGIO to when a descriptor is ready, which a runner could
// aim at another runner, such as another trajectory's session runner).
//
// A filter is classic BPF over struct seccomp_data: nr at offset 0, arch at
// 4, and the six arguments as 64-bit words from offset 16 (their low 32
// bits first on the little-endian machines supported here).

const (
	offNr   = 0
	offArch = 4
	offArgs = 16

	retAllow  = unix.SECCOMP_RET_ALLOW
	retKill   = unix.SECCOMP_RET_KILL_PROCESS
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// fioSetOwn is FIOSETOWN, the ioctl form of F_SETOWN (asm-generic, which
// amd64 and arm64 use; golang.org/x/sys does not name it).
const fioSetOwn = 0x8901

// namespaceFlags are the clone flags that create namespaces.
const namespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// jailDenied are the system calls no process in the jail may make; they
// fail with EPERM.
var jailDenied = append([]uintptr{
	unix.SYS_SOCKET, unix.SYS_SOCKETPAIR,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_KCMP, unix.SYS_PIDFD_GETFD,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT, unix.SYS_MOUNT_SETATTR,
	unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD, unix.SYS_PERSONALITY,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_REBOOT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_SYSLOG, unix.SYS_ACCT, unix.SYS_QUOTACTL,
	unix.SYS_FANOTIFY_INIT, unix.SYS_CLOCK_SETTIME, unix.SYS_SETTIMEOFDAY, unix.SYS_ADJTIMEX, unix.SYS_CLOCK_ADJTIME,
	unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME, unix.SYS_VHANGUP, unix.SYS_NFSSERVCTL,
}, archDenied...)

// runnerDenied are the system calls a runner may not make beyond those of
// the jail filter.
var runnerDenied = append([]uintptr{
	unix.SYS_EXECVE, unix.SYS_EXECVEAT, unix.SYS_KILL, unix.SYS_TKILL, unix.SYS_PIDFD_OPEN, unix.SYS_PIDFD_SEND_SIGNAL,
	unix.SYS_SETSID, unix.SYS_SETPGID,
}, archForks...)

// jailFilter returns the jail filter as bubblewrap's --seccomp reads it:
// the program's instructions, 8 bytes each in the machine's order.
func jailFilter() []byte {
	var a assembler
	a.header()
	for _, nr := range jailDenied {
		a.jeq(uint32(nr), "eperm", "")
	}
	a.jeq(uint32(unix.SYS_CLONE), "clone", "")
	a.jeq(uint32(unix.SYS_CLONE3), "enosys", "") // glibc falls back to clone, whose flags a filter can read
	a.jeq(uint32(unix.SYS_IOCTL), "ioctl", "")
	a.ret(retAllow)
	a.label("clone")
	a.loadArg(0)
	a.jset(namespaceFlags, "eperm", "allow")
	a.label("ioctl")
	a.loadArg(1)
	a.jeq(unix.TIOCSTI, "eperm", "")
	a.jeq(unix.TIOCLINUX, "eperm", "allow")
	a.footer()
	return a.bytes()
}

// runnerFilter returns the runner filter and the index of the instruction
// whose constant the runner sets to its own process id: tgkill may signal
// only the runner's own threads (raise and abort use it).
func runnerFilter() (prog []byte, pidInsn int) {
	var a assembler
	a.header()
	for _, nr := range runnerDenied {
		a.jeq(uint32(nr), "eperm", "")
	}
	a.jeq(uint32(unix.SYS_CLONE), "clone", "")
	a.jeq(uint32(unix.SYS_CLONE3), "enosys", "")
	a.jeq(uint32(unix.SYS_TGKILL), "tgkill", "")
	a.jeq(uint32(unix.SYS_PRLIMIT64), "prlimit", "")
	a.jeq(uint32(unix.SYS_FCNTL), "fcntl", "")
	a.jeq(uint32(unix.SYS_IOCTL), "ioctl", "")
	a.ret(retAllow)
	a.label("fcntl") // no owner for SIGIO: it could be another process
	a.loadArg(1)
	a.jeq(unix.F_SETOWN, "eperm", "")
	a.jeq(unix.F_SETOWN_EX, "eperm", "allow")
	a.label("ioctl")
	a.loadArg(1)
	a.jeq(fioSetOwn, "eperm", "")
	a.jeq(unix.SIOCSPGRP, "eperm", "allow")
	a.label("prlimit")
	a.loadArg(0)
	a.jeq(0, "allow", "eperm") // its own limits only (pid 0)
	a.label("clone")
	a.loadArg(0)
	a.jset(unix.CLONE_THREAD, "allow", "eperm") // threads only, which RLIMIT_NPROC bounds
	a.label("tgkill")
	a.loadArg(0)
	pidInsn = len(a.prog)
	a.jeq(0, "allow", "eperm")
	a.footer()
	return a.bytes(), pidInsn
}

// assembler writes a BPF program with forward jumps to named labels.
type assembler struct {
	prog   []unix.SockFilter
	labels map[string]int
	jumps  []jump
}

// jump is a conditional jump whose targets are resolved by bytes.
type jump struct {
	at     int
	jt, jf string // "" is the next instruction
}

// header checks the architecture (another one is killed: its system
// call numbers mean other calls) and loads the call number.
func (a *assembler) header() {
	a.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch)
	a.jeq(auditArch, "", "kill")
	a.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr)
	if x32Bit != 0 {
		a.jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, x32Bit, "eperm", "")
	}
}

// footer writes the shared returns.
func (a *assembler) footer() {
	a.label("allow")
	a.ret(retAllow)
	a.label("eperm")
	a.ret(retEPERM)
	a.label("enosys")
	a.ret(retENOSYS)
	a.label("kill")
	a.ret(retKill)
}

func (a *assembler) stmt(code uint16, k uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: code, K: k})
}

func (a *assembler) ret(k uint32)  { a.stmt(unix.BPF_RET|unix.BPF_K, k) }
func (a *assembler) loadArg(i int) { a.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, uint32(offArgs+8*i)) }
func (a *assembler) jeq(k uint32, jt, jf string) {
	a.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, k, jt, jf)
}
func (a *assembler) jset(k uint32, jt, jf string) {
	a.jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, k, jt, jf)
}

func (a *assembler) jump(code uint16, k uint32, jt, jf string) {
	a.jumps = append(a.jumps, jump{at: len(a.prog), jt: jt, jf: jf})
	a.stmt(code, k)
}

func (a *assembler) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// bytes resolves the jumps and encodes the program. A jump backwards, to
// an unknown label or further than 255 instructions is a programmer error.
func (a *assembler) bytes() []byte {
	for _, j := range a.jumps {
		a.prog[j.at].Jt = a.offset(j.at, j.jt)
		a.prog[j.at].Jf = a.offset(j.at, j.jf)
	}
	out := make([]byte, 0, 8*len(a.prog))
	for _, in := range a.prog {
		out = binary.LittleEndian.AppendUint16(out, in.Code)
		out = append(out, in.Jt, in.Jf)
		out = binary.LittleEndian.AppendUint32(out, in.K)
	}
	return out
}

func (a *assembler) offset(at int, label string) uint8 {
	if label == "" {
		return 0
	}
	to, ok := a.labels[label]
	if d := to - at - 1; !ok || d < 0 || d > 255 {
		panic(fmt.Sprintf("pysandbox: bad jump from %d to %q", at, label))
	}
	return uint8(to - at - 1)
}
