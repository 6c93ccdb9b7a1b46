//go:build linux

package kernels

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Emulator runs the module's kernels on the host: the same CUDA C as the
// PTX, compiled with the host's C++ compiler into a shared library and
// called through purego (no cgo). A device address is a host address of
// memory that stays in place for the launch: from mmap or C, or a Go
// slice whose address comes from HostAddr (which keeps it off the
// goroutine stack) and which the caller keeps alive. Launch returns when
// the kernel has finished. An Emulator is safe for concurrent use;
// ARTIST_CUDAEMU_THREADS bounds the OS threads that run a launch's
// blocks (default: the CPUs, at most 16).
type Emulator struct {
	Library string // the shared library in use
	launch  uintptr
	arity   uintptr
}

var _ Launcher = (*Emulator)(nil)

// ErrNoCompiler is NewEmulator's error, wrapped, when no C++ compiler is
// installed.
var ErrNoCompiler = errors.New("kernels: the CUDA emulator needs a C++ compiler")

// emuFlags are the host compiler's flags. Contraction stays off so that
// the host computes every float operation as written.
var emuFlags = []string{"-std=c++17", "-O2", "-fPIC", "-shared", "-pthread", "-ffp-contract=off", "-x", "c++"}

var emulator struct {
	once sync.Once
	e    *Emulator
	err  error
}

// NewEmulator returns the process's Emulator, building its library on
// first use into the user's cache folder (artist/cudaemu/<hash of the
// sources and compiler>), where later processes find it. The compiler is
// $CXX, else c++, g++ or clang++ on the PATH; with none, the error says
// to install g++.
func NewEmulator() (*Emulator, error) {
	emulator.once.Do(func() { emulator.e, emulator.err = openEmulator() })
	return emulator.e, emulator.err
}

func openEmulator() (*Emulator, error) {
	cxx, err := compiler()
	if err != nil {
		return nil, err
	}
	lib, err := buildLibrary(cxx)
	if err != nil {
		return nil, err
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("kernels: load emulator %s: %w", lib, err)
	}
	e := &Emulator{Library: lib}
	if e.launch, err = purego.Dlsym(h, "emu_launch"); err != nil {
		return nil, fmt.Errorf("kernels: emulator %s: %w", lib, err)
	}
	if e.arity, err = purego.Dlsym(h, "emu_arity"); err != nil {
		return nil, fmt.Errorf("kernels: emulator %s: %w", lib, err)
	}
	return e, nil
}

// compiler returns the host C++ compiler's path.
func compiler() (string, error) {
	names := []string{"c++", "g++", "clang++"}
	if cxx := strings.TrimSpace(os.Getenv("CXX")); cxx != "" {
		names = []string{cxx}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: found none of %s on the PATH: install g++ (Debian: apt-get install g++) or set CXX",
		ErrNoCompiler, strings.Join(names, ", "))
}

// buildLibrary returns the path of the emulator library for compiler
// cxx, compiling it unless the cache holds it.
func buildLibrary(cxx string) (string, error) {
	key, err := sourceKey(cxx)
	if err != nil {
		return "", err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "artist", "cudaemu", key)
	lib := filepath.Join(dir, "cudaemu.so")
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("kernels: emulator cache: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("kernels: emulator cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.CopyFS(tmp, mustSub(sources, "csrc")); err != nil {
		return "", fmt.Errorf("kernels: emulator sources: %w", err)
	}
	args := append(append([]string{}, emuFlags...), "-o", "cudaemu.so", "module.cu", "emu.cpp", "selftest.cpp")
	cmd := exec.Command(cxx, args...)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("kernels: compile the emulator with %s: %w\n%s", cxx, err, clip(out, 4000))
	}
	// A rename is atomic: processes building at once each install a whole library.
	if err := os.Rename(filepath.Join(tmp, "cudaemu.so"), lib); err != nil {
		return "", fmt.Errorf("kernels: emulator cache: %w", err)
	}
	return lib, nil
}

// sourceKey hashes the compiler's identity, the flags and every source.
func sourceKey(cxx string) (string, error) {
	h := sha256.New()
	ver, err := exec.Command(cxx, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("kernels: %s --version: %w", cxx, err)
	}
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00", cxx, ver, emuFlags)
	err = fs.WalkDir(sources, "csrc", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := sources.ReadFile(path)
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

func mustSub(f fs.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // the embedded folder exists
	}
	return s
}

func clip(b []byte, n int) string {
	if len(b) > n {
		b = append(b[:n:n], "…"...)
	}
	return string(bytes.TrimSpace(b))
}

// Launch runs kernel over grid on the host and returns when it is done.
// params are as Launcher says; a kernel that is not in the module, a
// parameter count or a value's size that does not match the C, a bad
// configuration or a deadlock at a barrier is an error.
func (e *Emulator) Launch(kernel string, grid, block Dim3, sharedBytes uint32, params ...any) error {
	slots := make([]uint64, len(params))
	ptrs := make([]uintptr, len(params)+1)
	sizes := make([]byte, len(params)+1)
	for i, p := range params {
		switch v := p.(type) {
		case uintptr:
			slots[i], sizes[i] = uint64(v), 8
		case int32:
			slots[i], sizes[i] = uint64(uint32(v)), 4
		case uint32:
			slots[i], sizes[i] = uint64(v), 4
		case int64:
			slots[i], sizes[i] = uint64(v), 8
		case uint64:
			slots[i], sizes[i] = v, 8
		case float32:
			slots[i], sizes[i] = uint64(math.Float32bits(v)), 4
		default:
			return fmt.Errorf("parameter %d is a %T; want uintptr, int32, uint32, int64, uint64 or float32", i, p)
		}
		ptrs[i] = uintptr(unsafe.Pointer(&slots[i]))
	}
	name := append([]byte(kernel), 0)
	msg := make([]byte, 512)
	r, _, _ := purego.SyscallN(e.launch, uintptr(unsafe.Pointer(&name[0])),
		uintptr(grid.X), uintptr(grid.Y), uintptr(grid.Z), uintptr(block.X), uintptr(block.Y), uintptr(block.Z),
		uintptr(sharedBytes), uintptr(unsafe.Pointer(&ptrs[0])), uintptr(unsafe.Pointer(&sizes[0])),
		uintptr(len(params)), uintptr(unsafe.Pointer(&msg[0])), uintptr(len(msg)))
	runtime.KeepAlive(slots)
	runtime.KeepAlive(sizes)
	runtime.KeepAlive(ptrs)
	runtime.KeepAlive(name)
	if int32(r) != 0 {
		if i := bytes.IndexByte(msg, 0); i >= 0 {
			msg = msg[:i]
		}
		return errors.New(string(msg))
	}
	return nil
}

// Arity returns the number of parameters of kernel, or -1 when the
// module has none of that name.
func (e *Emulator) Arity(kernel string) int {
	name := append([]byte(kernel), 0)
	r, _, _ := purego.SyscallN(e.arity, uintptr(unsafe.Pointer(&name[0])))
	runtime.KeepAlive(name)
	return int(int32(r))
}
