package backend

import (
	"errors"
	"strings"
	"testing"
)

// fake is a backend that only describes itself.
type fake struct{ Backend }

func (f fake) Info() Info { return Info{Name: "slow", Threads: 1} }

func init() {
	Register("fast", 5, func() (Backend, error) { return nil, errors.New("fast: install libfast") })
	Register("slow", 0, func() (Backend, error) { return fake{}, nil })
}

func TestRegisterRefusesDuplicates(t *testing.T) {
	for _, tc := range []struct {
		name string
		reg  func()
	}{
		{"duplicate", func() { Register("slow", 1, func() (Backend, error) { return fake{}, nil }) }},
		{"empty name", func() { Register("", 1, func() (Backend, error) { return fake{}, nil }) }},
		{"no constructor", func() { Register("other", 1, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			tc.reg()
		})
	}
	if got := strings.Join(Names(), ","); got != "fast,slow" {
		t.Errorf("Names() = %s, want fast,slow (most preferred first)", got)
	}
}

func TestSelect(t *testing.T) {
	for _, tc := range []struct {
		env     string
		want    string // backend name, or text of the error
		wantErr bool
		forced  bool
		skipped string
	}{
		{env: "", want: "slow", skipped: "install libfast"},
		{env: "auto", want: "slow", skipped: "install libfast"},
		{env: "slow", want: "slow", forced: true},
		{env: "fast", want: "ARTIST_BACKEND=fast: fast: install libfast", wantErr: true},
		{env: "tpu", want: `ARTIST_BACKEND=tpu: no backend named "tpu"; registered: fast, slow`, wantErr: true},
	} {
		t.Run("ARTIST_BACKEND="+tc.env, func(t *testing.T) {
			t.Setenv(EnvVar, tc.env)
			sel, err := Select()
			if tc.wantErr {
				if err == nil || !strings.HasPrefix(err.Error(), "backend: ") || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one starting backend: and containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sel.Backend.Info().Name != tc.want || sel.Forced != tc.forced {
				t.Errorf("selected %v (forced %v), want %s (forced %v)", sel.Backend.Info().Name, sel.Forced, tc.want, tc.forced)
			}
			if s := sel.String(); tc.skipped != "" && !strings.Contains(s, tc.skipped) {
				t.Errorf("selection %q does not say why fast was skipped", s)
			}
		})
	}
}

func TestTensorSlice(t *testing.T) {
	h := Host([]float32{0, 1, 2, 3, 4})
	s := h.Slice(1, 4)
	if s.Len() != 3 || s.Host()[0] != 1 || !s.OnHost() || cap(s.Host()) != 3 {
		t.Errorf("host Slice(1, 4) = %v (len %d, cap %d)", s.Host(), s.Len(), cap(s.Host()))
	}
	d := Device(0x1000, 8).Slice(2, 5)
	if d.Addr() != 0x1000+8 || d.Len() != 3 || d.OnHost() || d.Host() != nil {
		t.Errorf("device Slice(2, 5) = addr %#x len %d", d.Addr(), d.Len())
	}
	defer func() {
		if recover() == nil {
			t.Error("Slice past the end did not panic")
		}
	}()
	h.Slice(2, 6)
}

func TestLoadLibraryMissing(t *testing.T) {
	t.Setenv("BACKEND_TEST_LIBRARY", "")
	_, err := LoadLibrary("BACKEND_TEST_LIBRARY", "libnot-there-a.so", "libnot-there-b.so")
	if err == nil || !strings.Contains(err.Error(), "cannot load libnot-there-a.so or libnot-there-b.so") {
		t.Fatalf("error %v, want one naming both libraries", err)
	}
	t.Setenv("BACKEND_TEST_LIBRARY", "libnot-there-c.so")
	_, err = LoadLibrary("BACKEND_TEST_LIBRARY", "libc.so.6")
	if err == nil || !strings.Contains(err.Error(), "libnot-there-c.so") {
		t.Fatalf("error %v: the environment variable must replace the names", err)
	}
}

func TestLoadLibrary(t *testing.T) {
	lib, err := LoadLibrary("", "libc.so.6")
	if err != nil {
		t.Skip(err) // not a glibc system
	}
	var strlen func(string) uintptr
	if err := lib.Bind(&strlen, "strlen"); err != nil {
		t.Fatal(err)
	}
	if n := strlen("backend\x00"); n != 7 {
		t.Errorf("strlen = %d, want 7", n)
	}
	if _, err := lib.Symbol("no_such_symbol_here"); err == nil || !strings.Contains(err.Error(), "no symbol no_such_symbol_here") {
		t.Errorf("error %v, want one naming the symbol", err)
	}
}
