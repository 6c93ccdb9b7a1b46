package trainer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/artist-rl/artist/internal/atomicfile"
)

// manifestFile lists the size and SHA-256 of every other file of a
// checkpoint folder. It is written last, atomically, so a folder with a
// manifest was written whole; loading checks each file against it.
//
//	{"version": 1, "files": {"model.safetensors": {"size": 123, "sha256": "ab…"}, …}}
const manifestFile = "manifest.json"

const manifestVersion = 1

type manifest struct {
	Version int                      `json:"version"`
	Files   map[string]manifestEntry `json:"files"`
}

type manifestEntry struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// CheckpointError reports a checkpoint folder that cannot be trusted: a
// file missing, truncated or changed since the manifest was written, or a
// manifest that cannot be read. File names the file ("" when the problem
// is not one file's).
type CheckpointError struct {
	Dir  string
	File string
	Err  error
}

func (e *CheckpointError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("trainer: checkpoint %s is damaged: %v", e.Dir, e.Err)
	}
	return fmt.Sprintf("trainer: checkpoint %s is damaged: %s: %v", e.Dir, e.File, e.Err)
}

func (e *CheckpointError) Unwrap() error { return e.Err }

// writeManifest hashes every regular file of dir (but the manifest) and
// writes dir/manifest.json atomically. Call it after every other file is
// in place.
func writeManifest(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("trainer: checkpoint manifest: %w", err)
	}
	m := manifest{Version: manifestVersion, Files: map[string]manifestEntry{}}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == manifestFile {
			continue
		}
		ent, err := hashFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("trainer: checkpoint manifest: %w", err)
		}
		m.Files[e.Name()] = ent
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := atomicfile.WriteFile(filepath.Join(dir, manifestFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("trainer: checkpoint manifest: %w", err)
	}
	return nil
}

func hashFile(path string) (manifestEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return manifestEntry{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return manifestEntry{}, err
	}
	return manifestEntry{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// verifyCheckpoint checks the files of dir against its manifest: every
// file the manifest lists (only those of names that it lists, when names
// are given) must exist with the recorded size and SHA-256. Files the
// manifest does not list are not checked. It reports whether dir has a
// manifest at all: a folder without one (a HuggingFace download, or a
// checkpoint written before manifests) is not checked and gives false,
// nil. A failed check is a *CheckpointError naming the file.
func verifyCheckpoint(dir string, names ...string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, &CheckpointError{Dir: dir, File: manifestFile, Err: err}
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil || m.Version != manifestVersion || m.Files == nil {
		if err == nil {
			err = fmt.Errorf("version %d with %d files is not a version-%d manifest", m.Version, len(m.Files), manifestVersion)
		}
		return true, &CheckpointError{Dir: dir, File: manifestFile, Err: fmt.Errorf("%w: the manifest itself is damaged", err)}
	}
	check := make([]string, 0, len(m.Files))
	if len(names) == 0 {
		for name := range m.Files {
			check = append(check, name)
		}
	} else {
		for _, name := range names {
			if _, ok := m.Files[name]; ok {
				check = append(check, name)
			}
		}
	}
	sort.Strings(check)
	for _, name := range check {
		want := m.Files[name]
		if name != filepath.Base(name) || name == manifestFile {
			return true, &CheckpointError{Dir: dir, File: manifestFile, Err: fmt.Errorf("lists %q, which is not a file of the folder", name)}
		}
		got, err := hashFile(filepath.Join(dir, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return true, &CheckpointError{Dir: dir, File: name, Err: errors.New("missing, but listed in manifest.json")}
		case err != nil:
			return true, &CheckpointError{Dir: dir, File: name, Err: err}
		case got.Size != want.Size:
			return true, &CheckpointError{Dir: dir, File: name, Err: fmt.Errorf("holds %d bytes, manifest.json records %d: the file is truncated or was overwritten", got.Size, want.Size)}
		case got.SHA256 != want.SHA256:
			return true, &CheckpointError{Dir: dir, File: name, Err: fmt.Errorf("sha256 %s differs from %s in manifest.json: the file is corrupt", got.SHA256, want.SHA256)}
		}
	}
	return true, nil
}
