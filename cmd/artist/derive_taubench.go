package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/artist-rl/artist/envs/taubench"
	"github.com/artist-rl/artist/internal/atomicfile"
)

const taubenchSourceHint = "-src must hold sierra-research/tau-bench's task and rules modules as airline/{tasks_test,rules}.py and retail/{tasks_train,tasks_dev,tasks_test,rules}.py (tau_bench/envs/<domain>/); scripts/fetch-data.sh fetches them"

// taubenchSources lists, per domain, the upstream modules that derive
// taubench converts: tasks_<split>.py for each split, then rules.py.
func taubenchSources() map[string][]string {
	out := map[string][]string{}
	for env, splits := range taubench.Splits {
		for _, s := range splits {
			out[env] = append(out[env], "tasks_"+s+".py")
		}
		out[env] = append(out[env], "rules.py")
	}
	return out
}

// runDeriveTaubench converts every module under -src/<domain>/ into
// -out/<domain>/ (tasks_<split>.json, rules.json), each written
// atomically, byte for byte as the shared files are written.
func runDeriveTaubench(args []string, stdout, stderr io.Writer) error {
	src, out, err := deriveFlags("taubench", "output `DIR`, the tau_bench folder (domain folders are created when missing)", args, stderr)
	if err != nil {
		return err
	}
	for _, env := range []string{taubench.Airline, taubench.Retail} {
		for _, name := range taubenchSources()[env] {
			if err := deriveTaubenchFile(filepath.Join(src, env, name), filepath.Join(out, env), stdout); err != nil {
				return err
			}
		}
	}
	return nil
}

func deriveTaubenchFile(path, dir string, stdout io.Writer) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w; %s", err, taubenchSourceHint)
	}
	name := filepath.Base(path)
	convert := taubench.ConvertTasks
	if name == "rules.py" {
		convert = taubench.ConvertRules
	}
	v, err := convert(string(raw))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	text, err := taubench.ConvertJSON(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p := filepath.Join(dir, strings.TrimSuffix(name, ".py")+".json")
	if err := atomicfile.WriteFile(p, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", p, len(text))
	return nil
}
