package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name string
		old  string // "" means the file does not exist yet
		data string
		perm os.FileMode
	}{
		{name: "create", data: "hello\n", perm: 0o644},
		{name: "replace", old: "old content that is longer", data: "new", perm: 0o600},
		{name: "empty", old: "x", data: "", perm: 0o640},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			if tc.old != "" {
				if err := os.WriteFile(path, []byte(tc.old), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(path, []byte(tc.data), tc.perm); err != nil {
				t.Fatalf("WriteFile: %v", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.data {
				t.Errorf("content = %q, want %q", got, tc.data)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != tc.perm {
				t.Errorf("mode = %v, want %v", st.Mode().Perm(), tc.perm)
			}
			assertOnlyFile(t, dir, "f.txt")
		})
	}
}

func TestWriteFailureKeepsOldContent(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name  string
		write func(io.Writer) error
	}{
		{name: "error after partial write", write: func(w io.Writer) error {
			io.WriteString(w, "partial new content")
			return boom
		}},
		{name: "error after large write", write: func(w io.Writer) error {
			io.WriteString(w, strings.Repeat("y", 3<<20)) // more than the buffer
			return boom
		}},
		{name: "panic", write: func(w io.Writer) error {
			io.WriteString(w, "partial")
			panic(boom)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			if err := WriteFile(path, []byte("previous"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = r.(error)
					}
				}()
				return Write(path, 0o644, tc.write)
			}()
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want wrapping boom", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "previous" {
				t.Errorf("content = %q, want the previous content", got)
			}
			assertOnlyFile(t, dir, "state.json")
		})
	}
}

func TestWriteStreaming(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.bin")
	want := strings.Repeat("0123456789", 300_000) // 3 MB, several buffer flushes
	err := Write(path, 0o644, func(w io.Writer) error {
		for i := 0; i < len(want); i += 7000 {
			if _, err := io.WriteString(w, want[i:min(i+7000, len(want))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("streamed content differs: got %d bytes, want %d", len(got), len(want))
	}
}

func TestWriteMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "f")
	err := WriteFile(path, []byte("x"), 0o644)
	if err == nil || !strings.HasPrefix(err.Error(), "atomicfile: ") {
		t.Fatalf("err = %v, want an atomicfile error", err)
	}
}

func TestWriteRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := WriteFile("rel.txt", []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "rel.txt"))
	if err != nil || string(got) != "ok" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// assertOnlyFile fails if dir holds anything but name (a leftover temp file).
func assertOnlyFile(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != name {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only %s", names, name)
	}
}

func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "atomicfile")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "step.txt")
	_ = WriteFile(path, []byte("step 1"), 0o644)
	_ = Write(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "step 2 (never visible)")
		return errors.New("disk full")
	})
	b, _ := os.ReadFile(path)
	fmt.Println(string(b))
	// Output: step 1
}
