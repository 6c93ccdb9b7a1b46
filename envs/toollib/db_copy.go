package toollib

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SaveAs writes a consistent snapshot of the database to path atomically
// (VACUUM INTO a temporary file beside it, fsync, rename). path must not
// be open as a database elsewhere: a write-ahead log beside it is refused.
func (d *DB) SaveAs(path string) error {
	if _, err := os.Stat(path + "-wal"); err == nil {
		return fmt.Errorf("toollib: save %s: %s-wal exists, so the database is open elsewhere; close it first", path, path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("toollib: save %s: %w", path, err)
	}
	tmp := f.Name()
	f.Close()
	os.Remove(tmp) // VACUUM INTO wants a name that is free
	defer os.Remove(tmp)
	if _, err := d.db.Exec(`VACUUM INTO ?`, tmp); err != nil {
		return fmt.Errorf("toollib: save %s: %w", path, err)
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("toollib: save %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("toollib: save %s: %w", path, err)
	}
	if err := syncFile(filepath.Dir(path)); err != nil {
		return fmt.Errorf("toollib: save %s: %w", path, err)
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// OpenCopy opens a private working copy of the database at src, in a
// temporary file that Close removes; src is only read (and migrated when
// its schema is old), and a missing src gives an empty copy without
// creating src. A
// training run that grows its library works on a copy and saves it with
// SaveAs at checkpoints, so that its seed database stays as it was.
func OpenCopy(src string) (*DB, error) {
	if err := notJSON(src); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toollib-")
	if err != nil {
		return nil, fmt.Errorf("toollib: copy %s: %w", src, err)
	}
	dst := filepath.Join(dir, "tools.db")
	if err := copyDB(src, dst); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	d, err := OpenDB(dst)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	d.tmpDir = dir
	return d, nil
}

// copyDB snapshots src into dst when src exists.
func copyDB(src, dst string) error {
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	s, err := OpenDB(src)
	if err != nil {
		return err
	}
	return errors.Join(s.SaveAs(dst), s.Close())
}
