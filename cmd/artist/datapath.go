package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/internal/datadir"
)

// dataFlagUsage is the usage of every command's -data flag.
const dataFlagUsage = "benchmark data root `DIR` (math500/, bfcl_v3/, tau_bench/, ...; default: $ARTIST_DATA, else data)"

// benchmarkFolder returns the folder of one benchmark (sub, e.g.
// "bfcl_v3") inside the data root that -data (flag) or the rule of
// datadir.Dir names. -data once named the benchmark's own folder: a root
// that lacks sub but holds marker (a file or folder of the benchmark
// itself) is taken as that older form, with a note on note.
func benchmarkFolder(flag, sub, marker string, note io.Writer) (string, string, datadir.Source) {
	root, src := datadir.Dir(flag)
	dir := filepath.Join(root, sub)
	if _, err := os.Stat(dir); err != nil {
		if _, err := os.Stat(filepath.Join(root, marker)); err == nil {
			fmt.Fprintf(note, "note: %s names the %s folder itself; -data now names the data root that holds %s/ (here -data %s): using it as given\n",
				root, sub, sub, filepath.Dir(filepath.Clean(root)))
			return root, filepath.Dir(filepath.Clean(root)), src
		}
	}
	return dir, root, src
}
