package backend

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Library is a shared library opened at run time with dlopen, without cgo,
// so one binary runs whether or not the library is installed. Backends
// that call a C library (OpenBLAS, and cuBLAS next) load it this way.
type Library struct {
	Name   string // the name or path that opened
	handle uintptr
}

// LoadLibrary opens the first of names that loads (names are searched as
// dlopen searches them: the loader cache, LD_LIBRARY_PATH, …). When the
// environment variable env is set, its value replaces names: a file name
// or path of the library to use, which also lets tests name one that is
// absent. The error lists every name tried and why it failed.
func LoadLibrary(env string, names ...string) (*Library, error) {
	if v := strings.TrimSpace(os.Getenv(env)); env != "" && v != "" {
		names = []string{v}
	}
	if len(names) == 0 {
		return nil, errors.New("backend: LoadLibrary needs a library name")
	}
	var whys []string
	for _, name := range names {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			return &Library{Name: name, handle: h}, nil
		}
		whys = append(whys, err.Error()) // dlerror names the file
	}
	return nil, fmt.Errorf("cannot load %s (%s)", strings.Join(names, " or "), strings.Join(whys, "; "))
}

// Symbol returns the address of the C function name, for purego.SyscallN.
func (l *Library) Symbol(name string) (uintptr, error) {
	p, err := purego.Dlsym(l.handle, name)
	if err != nil {
		return 0, fmt.Errorf("%s has no symbol %s: %w", l.Name, name, err)
	}
	return p, nil
}

// GoString copies the NUL-terminated C string at p ("" for nil), as a
// library's functions return their names and messages.
func GoString(p *byte) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for ; *p != 0; p = (*byte)(unsafe.Add(unsafe.Pointer(p), 1)) {
		b.WriteByte(*p)
	}
	return b.String()
}

// Bind makes *fptr, a pointer to a func variable whose signature mirrors
// the C prototype, call the C function name. It suits functions called a
// few times (set-up, queries); a hot path calls Symbol's address through
// purego.SyscallN, which costs less per call.
func (l *Library) Bind(fptr any, name string) error {
	p, err := l.Symbol(name)
	if err != nil {
		return err
	}
	purego.RegisterFunc(fptr, p)
	return nil
}
