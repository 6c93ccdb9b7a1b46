package cuda

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/artist-rl/artist/policy/backend"
)

// LibDirEnv names the environment variable that points the backend at the
// folder holding the CUDA libraries (libcublasLt, and libcuda.so.1 when
// the driver is not where the loader finds it). It is searched first.
const LibDirEnv = "ARTIST_CUDA_LIBDIR"

// StandardDirs are the folders of CUDA toolkit and distribution installs,
// searched after LibDirEnv and the loader's own search.
var StandardDirs = []string{
	"/usr/local/cuda/lib64",
	"/usr/local/cuda/targets/x86_64-linux/lib",
	"/usr/lib/x86_64-linux-gnu",
}

// wheelDirs are the folders, under a Python site-packages or dist-packages
// folder, where NVIDIA's wheels put their libraries: CUDA 13 wheels share
// one folder, CUDA 12 wheels have one per library.
var wheelDirs = []string{"nvidia/cu13/lib", "nvidia/cublas/lib"}

// Sonames lists a library's file names, newest major version first, as
// the candidates try them.
var (
	cublasLtSonames = []string{"libcublasLt.so.13", "libcublasLt.so.12"}
	driverSonames   = []string{"libcuda.so.1"}
)

// SearchPath is where the candidates come from; LibraryCandidates turns
// it into the ordered list of files to try. A zero SearchPath lists only
// the bare names, which dlopen searches for itself.
type SearchPath struct {
	LibDir       string   // the value of LibDirEnv, "" when unset
	StandardDirs []string // usually StandardDirs
	SitePackages []string // Python site-packages and dist-packages folders
}

// LibraryCandidates lists the files to try for a library whose SONAMEs
// are sonames (newest first), in the order they are tried: the folder
// LibDir; the bare names (dlopen's own search: LD_LIBRARY_PATH, the
// loader cache); each standard folder; each Python installation's wheel
// folders. Within each place the newer SONAME comes first. Duplicates are
// dropped, the first kept.
func LibraryCandidates(sp SearchPath, sonames []string) []string {
	var out []string
	add := func(dir string) {
		for _, so := range sonames {
			p := so
			if dir != "" {
				p = filepath.Join(dir, so)
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	if sp.LibDir != "" {
		add(sp.LibDir)
	}
	add("")
	for _, d := range sp.StandardDirs {
		add(d)
	}
	for _, site := range sp.SitePackages {
		for _, w := range wheelDirs {
			add(filepath.Join(site, w))
		}
	}
	return out
}

// DefaultSearchPath is the search path of this machine: LibDirEnv, the
// standard folders, and the site-packages and dist-packages folders of
// the Python installations found in the usual prefixes (/usr, /usr/local,
// an active virtual or conda environment, the user's ~/.local).
func DefaultSearchPath() SearchPath {
	sp := SearchPath{LibDir: strings.TrimSpace(os.Getenv(LibDirEnv)), StandardDirs: StandardDirs}
	prefixes := []string{os.Getenv("VIRTUAL_ENV"), os.Getenv("CONDA_PREFIX"), "/usr/local", "/usr"}
	if home, err := os.UserHomeDir(); err == nil {
		prefixes = append(prefixes, filepath.Join(home, ".local"))
	}
	for _, p := range prefixes {
		if p == "" {
			continue
		}
		for _, kind := range []string{"site-packages", "dist-packages"} {
			matches, _ := filepath.Glob(filepath.Join(p, "lib", "python3*", kind))
			slices.Sort(matches)
			slices.Reverse(matches) // newest Python first
			sp.SitePackages = append(sp.SitePackages, matches...)
		}
	}
	return sp
}

// loadFirst opens the first candidate that loads. Paths that do not exist
// are skipped without a dlopen, so the error lists only the bare names
// and the files that exist but failed (a wrong architecture, a missing
// dependency).
func loadFirst(candidates []string) (*backend.Library, error) {
	var tried []string
	for _, c := range candidates {
		if strings.ContainsRune(c, '/') {
			if _, err := os.Stat(c); err != nil {
				continue
			}
		}
		tried = append(tried, c)
	}
	if len(tried) == 0 {
		tried = candidates[:1]
	}
	return backend.LoadLibrary("", tried...)
}
