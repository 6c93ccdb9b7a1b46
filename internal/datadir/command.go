package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EnvVar is the environment variable that names the data folder.
const EnvVar = "ARTIST_DATA"

// Default is the data folder of a command run without -data or
// ARTIST_DATA, relative to the working directory.
const Default = "data"

// Source says where a command's data folder came from.
type Source string

// The sources of Dir, in the order it tries them.
const (
	FromFlag    Source = "-data"
	FromEnv     Source = EnvVar
	FromDefault Source = "default"
)

// Dir returns the data folder of a command, by the one rule every command
// follows: the -data flag when it is set (flag is its value, "" when
// absent), else $ARTIST_DATA, else data/ in the working directory.
func Dir(flag string) (string, Source) {
	if flag != "" {
		return flag, FromFlag
	}
	if env := os.Getenv(EnvVar); env != "" {
		return env, FromEnv
	}
	return Default, FromDefault
}

// Path resolves a data path written in a config (for example
// "data/bfcl_v3", the documented default form) by the same rule: a
// relative path whose first element is data/ moves under $ARTIST_DATA when
// it is set. A file the data folder may hold under another name (see
// aliases) is found under either. Other paths are returned unchanged.
func Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	slash := filepath.ToSlash(filepath.Clean(p))
	rel, ok := strings.CutPrefix(slash, Default+"/")
	if !ok {
		return p
	}
	root, _ := Dir("")
	return inRoot(root, rel)
}

// Join returns the path of rel (slash-separated) inside root, or of one of
// its aliases when only that exists.
func Join(root, rel string) string { return inRoot(root, rel) }

// inRoot is Join: rel under root, or its first alias that exists there.
func inRoot(root, rel string) string {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err == nil {
		return p
	}
	for _, a := range aliases[rel] {
		q := filepath.Join(root, filepath.FromSlash(a))
		if _, err := os.Stat(q); err == nil {
			return q
		}
	}
	return p
}

// Explain adds to an error caused by a missing file (fs.ErrNotExist) the
// one message about missing data: where the folder came from and the three
// ways to get one (-data, ARTIST_DATA, scripts/fetch-data.sh). Other
// errors, and nil, are returned unchanged.
//
// When the error names the missing path (an *fs.PathError), it is
// explained only if that path lies inside dir.
func Explain(err error, dir string, src Source) error {
	var me *MissingError
	if err == nil || !errors.Is(err, fs.ErrNotExist) || errors.As(err, &me) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && !within(pe.Path, dir) {
		return err
	}
	return &MissingError{Dir: dir, Source: src, Err: err}
}

// within reports whether path is dir or lies inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// MissingError is a benchmark file missing from the data folder.
type MissingError struct {
	Dir    string // the data folder looked in
	Source Source // where Dir came from
	Err    error  // the error that named the missing file
}

func (e *MissingError) Error() string {
	var from string
	switch e.Source {
	case FromFlag:
		from = "given by -data"
	case FromEnv:
		from = "given by " + EnvVar
	default:
		from = "the default, as neither -data nor " + EnvVar + " is set"
	}
	return fmt.Sprintf("%v\nbenchmark data is looked for in %s (%s): download it with scripts/fetch-data.sh (into data/, or scripts/fetch-data.sh DIR), or name a folder that holds it with %s=DIR or, on eval and the replay commands, -data DIR",
		e.Err, e.Dir, from, EnvVar)
}

func (e *MissingError) Unwrap() error { return e.Err }
