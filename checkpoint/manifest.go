package checkpoint

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

// ManifestFile is the name of a folder's manifest. It is written last,
// atomically, so a folder with a manifest was written whole:
//
//	{"version": 1, "files": {"model.safetensors": {"size": 123, "sha256": "ab…"}, …}}
const ManifestFile = "manifest.json"

// ManifestVersion is the version of the manifest format that
// WriteManifest writes and Verify reads.
const ManifestVersion = 1

// Manifest lists the size and SHA-256 of every other file of a folder.
type Manifest struct {
	Version int                `json:"version"`
	Files   map[string]FileSum `json:"files"`
}

// FileSum is one file's entry in a Manifest.
type FileSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // lower-case hex
}

// Error reports a folder that cannot be trusted: a file missing, truncated
// or changed since the manifest was written, or a manifest that cannot be
// read. File names the file ("" when the problem is not one file's).
type Error struct {
	Dir  string
	File string
	Err  error
}

func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("checkpoint: %s is damaged: %v", e.Dir, e.Err)
	}
	return fmt.Sprintf("checkpoint: %s is damaged: %s: %v", e.Dir, e.File, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// WriteManifest hashes every regular file of dir (but the manifest) and
// writes dir/manifest.json atomically. Call it after every other file is
// in place.
func WriteManifest(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("checkpoint: manifest: %w", err)
	}
	m := Manifest{Version: ManifestVersion, Files: map[string]FileSum{}}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == ManifestFile {
			continue
		}
		sum, err := hashFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("checkpoint: manifest: %w", err)
		}
		m.Files[e.Name()] = sum
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := atomicfile.WriteFile(filepath.Join(dir, ManifestFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("checkpoint: manifest: %w", err)
	}
	return nil
}

func hashFile(path string) (FileSum, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileSum{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return FileSum{}, err
	}
	return FileSum{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// ReadManifest reads dir's manifest. It returns nil, nil when dir has
// none, and an *Error when the manifest cannot be read or is not a
// version-1 manifest.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Dir: dir, File: ManifestFile, Err: err}
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil || m.Version != ManifestVersion || m.Files == nil {
		if err == nil {
			err = fmt.Errorf("version %d with %d files is not a version-%d manifest", m.Version, len(m.Files), ManifestVersion)
		}
		return nil, &Error{Dir: dir, File: ManifestFile, Err: fmt.Errorf("%w: the manifest itself is damaged", err)}
	}
	return &m, nil
}

// Verify checks the files of dir against its manifest: every file the
// manifest lists (only those of names that it lists, when names are
// given) must exist with the recorded size and SHA-256. Files the
// manifest does not list are not checked. It reports whether dir has a
// manifest at all: a folder without one (a HuggingFace download, or a
// checkpoint written before manifests) is not checked and gives false,
// nil. A failed check is an *Error naming the file.
func Verify(dir string, names ...string) (bool, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return true, err
	}
	if m == nil {
		return false, nil
	}
	return true, m.check(dir, names)
}

// check verifies the files of dir that m lists (of names, when given).
func (m *Manifest) check(dir string, names []string) error {
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
		if name != filepath.Base(name) || name == ManifestFile {
			return &Error{Dir: dir, File: ManifestFile, Err: fmt.Errorf("lists %q, which is not a file of the folder", name)}
		}
		got, err := hashFile(filepath.Join(dir, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return &Error{Dir: dir, File: name, Err: errors.New("missing, but listed in manifest.json")}
		case err != nil:
			return &Error{Dir: dir, File: name, Err: err}
		case got.Size != want.Size:
			return &Error{Dir: dir, File: name, Err: fmt.Errorf("holds %d bytes, manifest.json records %d: the file is truncated or was overwritten", got.Size, want.Size)}
		case got.SHA256 != want.SHA256:
			return &Error{Dir: dir, File: name, Err: fmt.Errorf("sha256 %s differs from %s in manifest.json: the file is corrupt", got.SHA256, want.SHA256)}
		}
	}
	return nil
}

// FileSHA256 is the SHA-256 (hex) of dir's file name: as dir's
// manifest.json records it when the folder has one (after checking the
// file against it), else hashed from the file.
func FileSHA256(dir, name string) (string, error) {
	verified, err := Verify(dir, name)
	if err != nil {
		return "", err
	}
	if verified {
		m, err := ReadManifest(dir)
		if err != nil {
			return "", err
		}
		if m != nil && m.Files[name].SHA256 != "" {
			return m.Files[name].SHA256, nil
		}
	}
	sum, err := hashFile(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	return sum.SHA256, nil
}
