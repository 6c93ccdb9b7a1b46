package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// WriteFile atomically replaces path with data. The file gets mode perm
// exactly (the umask does not apply). The folder of path must exist.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write atomically replaces path with what write writes. The writer is
// buffered; write must not keep it after returning. If write returns an
// error (or panics), path keeps its previous content, the temporary file is
// removed, and the error is returned wrapped.
func Write(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	tmp := f.Name()
	committed := false
	defer func() {
		if !committed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := fill(f, perm, write); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("atomicfile: write %s: close: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	committed = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("atomicfile: write %s: sync folder: %w", path, err)
	}
	return nil
}

// fill writes the content through a buffer, sets the mode and fsyncs.
func fill(f *os.File, perm os.FileMode, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	return f.Sync()
}

// syncDir makes a rename in dir durable. Windows cannot open folders for
// syncing and orders renames itself, so it is skipped there.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) { // some file systems cannot sync folders
		return nil
	}
	return err
}
