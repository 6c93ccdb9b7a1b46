package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/envs/mathtask"
	"github.com/artist-rl/artist/envs/taubench"
	"github.com/artist-rl/artist/internal/datadir"
)

// sourceFile is one line of a list in scripts/sources.sh.
type sourceFile struct{ dest, repo, commit, path, sha string }

// sourceLists reads the four lists of scripts/sources.sh by sourcing it
// with bash, so the test sees exactly what the scripts see.
func sourceLists(t *testing.T) map[string][]sourceFile {
	t.Helper()
	needTools(t, "bash")
	out := map[string][]sourceFile{}
	for _, list := range []string{"DATA_FILES", "BFCL_SOURCE_FILES", "AIME25_SOURCE_FILES", "TAU_BENCH_SOURCE_FILES"} {
		b, err := exec.Command("bash", "-c", `. ../../scripts/sources.sh && printf '%s\n' "$`+list+`"`).Output()
		if err != nil {
			t.Fatalf("sourcing scripts/sources.sh: %v", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if len(f) != 5 || len(f[2]) != 40 || len(f[4]) != 64 {
				t.Fatalf("%s: malformed line %q (want DEST REPOSITORY COMMIT PATH SHA256, full commit and sha256)", list, line)
			}
			out[list] = append(out[list], sourceFile{f[0], f[1], f[2], f[3], f[4]})
		}
	}
	return out
}

// sharedPath is where the data folder keeps a copy of a listed file.
func sharedPath(list, dest string) string {
	switch list {
	case "BFCL_SOURCE_FILES":
		return "bfcl_v3/func_source_code/" + dest
	case "AIME25_SOURCE_FILES":
		return "aime25/source/" + dest
	case "TAU_BENCH_SOURCE_FILES":
		return "tau_bench/source/" + dest
	}
	if dest == "math_train/math.json" { // the data folder names the stand-in training pool for what it is
		return "math_train_substitute/deepscaler_math_train.json"
	}
	return dest
}

// needTools fails the test when a program the scripts need is missing.
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Fatalf("the fetch scripts need %s on PATH: %v", n, err)
		}
	}
}

// mirror lays the listed files out as REPOSITORY/COMMIT/PATH under a new
// folder, copied from the data folder, and returns the folder. corrupt,
// when not empty, names a DEST whose copy gets one extra byte.
func mirror(t *testing.T, lists map[string][]sourceFile, names []string, corrupt string) string {
	t.Helper()
	root := t.TempDir()
	for _, list := range names {
		for _, f := range lists[list] {
			b, err := os.ReadFile(datadir.Require(t, sharedPath(list, f.dest)))
			if err != nil {
				t.Fatal(err)
			}
			if f.dest == corrupt {
				b = append(b, '\n')
			}
			p := filepath.Join(root, f.repo, f.commit, filepath.FromSlash(f.path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// runScript runs a script of scripts/ with bash against a file:// mirror
// and returns its combined output and error.
func runScript(t *testing.T, script, mirrorDir string, args ...string) (string, error) {
	t.Helper()
	needTools(t, "bash", "curl", "go")
	cmd := exec.Command("bash", append([]string{filepath.Join("..", "..", "scripts", script)}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ARTIST_BIN=") && !strings.HasPrefix(kv, "ARTIST_FETCH_BASE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "ARTIST_FETCH_BASE=file://"+filepath.ToSlash(mirrorDir))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// canonJSON re-encodes JSON text, keeping key order and int versus float,
// so that two texts compare equal exactly when they are the same value.
func canonJSON(t *testing.T, b []byte) string {
	t.Helper()
	v, err := bfcl.DecodeJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := bfcl.PyJSONUnicode(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFetchDataScript runs scripts/fetch-data.sh against an offline mirror
// of the upstream repositories and checks that it reproduces the data
// folder: verbatim files byte for byte, derived files as JSON values, and
// that BFCL replay and the math loaders work on the result.
func TestFetchDataScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scripts/fetch-data.sh")
	}
	lists := sourceLists(t)
	m := mirror(t, lists, []string{"DATA_FILES", "BFCL_SOURCE_FILES", "AIME25_SOURCE_FILES", "TAU_BENCH_SOURCE_FILES"}, "")
	conformance := map[string]string{}
	for _, c := range bfcl.Categories {
		conformance[c] = datadir.Require(t, "bfcl_v3/conformance/"+c+".jsonl")
	}
	out := filepath.Join(t.TempDir(), "data")
	if log, err := runScript(t, "fetch-data.sh", m, out); err != nil {
		t.Fatalf("fetch-data.sh: %v\n%s", err, log)
	}
	for _, f := range lists["DATA_FILES"] {
		want := readFile(t, datadir.Require(t, sharedPath("DATA_FILES", f.dest)))
		if got := readFile(t, filepath.Join(out, f.dest)); !bytes.Equal(got, want) {
			t.Errorf("%s differs from the data folder's copy", f.dest)
		}
	}
	for _, rel := range []string{"bfcl_v3/reference_tables.json", "bfcl_v3/long_context_extensions.json"} {
		got := readFile(t, filepath.Join(out, rel))
		if canonJSON(t, got) != canonJSON(t, readFile(t, datadir.Require(t, rel))) {
			t.Errorf("derived %s is not the same JSON value as the data folder's", rel)
		}
	}
	gotAIME := strings.Split(string(readFile(t, filepath.Join(out, "aime25", "test.jsonl"))), "\n")
	wantAIME := strings.Split(string(readFile(t, datadir.Require(t, "aime25/test.jsonl"))), "\n")
	if len(gotAIME) != len(wantAIME) {
		t.Fatalf("aime25/test.jsonl: %d lines, want %d", len(gotAIME), len(wantAIME))
	}
	for i := range wantAIME {
		if wantAIME[i] != "" && canonJSON(t, []byte(gotAIME[i])) != canonJSON(t, []byte(wantAIME[i])) {
			t.Errorf("aime25/test.jsonl line %d differs", i+1)
		}
	}
	if tasks, _, err := mathtask.Load(filepath.Join(out, "aime25", "test.jsonl")); err != nil || len(tasks) != 30 {
		t.Errorf("aime25: %d tasks, %v", len(tasks), err)
	}
	if tasks, _, err := mathtask.Load(filepath.Join(out, "math_train", "math.json")); err != nil || len(tasks) < 7000 {
		t.Errorf("math_train/math.json: %d tasks, %v", len(tasks), err)
	}
	checkTaubenchDerived(t, filepath.Join(out, "tau_bench"))
	for env := range taubench.Splits {
		if _, err := taubench.Load(filepath.Join(out, "tau_bench", env), env); err != nil {
			t.Errorf("tau_bench/%s: %v", env, err)
		}
	}

	// The upstream sources stay beside what was derived from them, and the
	// conformance traces recorded on the reference environments are the
	// data folder's, byte for byte (when python3 has mpmath).
	for _, f := range lists["BFCL_SOURCE_FILES"] {
		if _, err := os.Stat(filepath.Join(out, "bfcl_v3", "func_source_code", f.dest)); err != nil {
			t.Errorf("source %s not kept: %v", f.dest, err)
		}
	}
	if exec.Command("python3", "-c", "import mpmath").Run() == nil {
		for _, c := range bfcl.Categories {
			got := readFile(t, filepath.Join(out, "bfcl_v3", "conformance", c+".jsonl"))
			if !bytes.Equal(got, readFile(t, conformance[c])) {
				t.Errorf("recorded conformance/%s.jsonl differs from the data folder's", c)
			}
		}
	} else {
		t.Log("python3 cannot import mpmath: conformance recording not checked")
	}

	d, err := bfcl.Load(filepath.Join(out, "bfcl_v3"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range bfcl.Categories {
		if es, err := d.Entries(c); err != nil || len(es) != 200 {
			t.Errorf("bfcl %s: %d entries, %v", c, len(es), err)
		}
	}
	// One replayed entry per category must equal its conformance record.
	for _, c := range bfcl.Categories {
		f, err := os.Open(conformance[c])
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		sc.Scan()
		f.Close()
		want := sc.Text()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"bfcl", "replay", "-category", c, "-id", "multi_turn_" + c + "_0",
			"-data", filepath.Join(out, "bfcl_v3")}, &stdout, &stderr)
		if code != 0 || strings.TrimSuffix(stdout.String(), "\n") != want {
			t.Errorf("bfcl replay %s on the fetched data: exit %d, stderr %q; record equal: %v",
				c, code, stderr.String(), strings.TrimSuffix(stdout.String(), "\n") == want)
		}
	}
}

// TestFetchDataScriptChecksum corrupts one mirrored file: the script must
// stop, name the file, and leave nothing at its destination.
func TestFetchDataScriptChecksum(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scripts/fetch-data.sh")
	}
	lists := sourceLists(t)
	bad := lists["DATA_FILES"][1].dest
	m := mirror(t, lists, []string{"DATA_FILES"}, bad)
	out := t.TempDir()
	log, err := runScript(t, "fetch-data.sh", m, out)
	if err == nil {
		t.Fatalf("fetch-data.sh succeeded on a corrupted mirror:\n%s", log)
	}
	if !strings.Contains(log, "sha256 mismatch for") || !strings.Contains(log, bad) {
		t.Errorf("output does not name the mismatching file %s:\n%s", bad, log)
	}
	left, _ := filepath.Glob(filepath.Join(out, filepath.FromSlash(bad)) + "*")
	if len(left) > 0 {
		t.Errorf("a failed download left %v", left)
	}
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(lists["DATA_FILES"][0].dest))); err != nil {
		t.Errorf("the file before the corrupted one was not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(filepath.Join(out, filepath.FromSlash(bad)))); err == nil {
		t.Errorf("a failed download left the empty folder of %s", bad)
	}
	if !strings.Contains(log, "ARTIST_FETCH_BASE") {
		t.Errorf("the failure does not say how to fetch from a mirror:\n%s", log)
	}
}

// TestDeriveBFCLTablesScript regenerates the embedded tables from an
// offline mirror into a temporary folder; they must equal the shipped
// copies byte for byte.
func TestDeriveBFCLTablesScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scripts/derive-bfcl-tables.sh")
	}
	lists := sourceLists(t)
	m := mirror(t, lists, []string{"BFCL_SOURCE_FILES"}, "")
	out := t.TempDir()
	if log, err := runScript(t, "derive-bfcl-tables.sh", m, out); err != nil {
		t.Fatalf("derive-bfcl-tables.sh: %v\n%s", err, log)
	}
	for _, name := range []string{"reference_tables.json", "long_context_extensions.json"} {
		want := readFile(t, filepath.Join("..", "..", "envs", "bfcl", "tables", name))
		if !bytes.Equal(readFile(t, filepath.Join(out, name)), want) {
			t.Errorf("regenerated %s differs from envs/bfcl/tables/%s", name, name)
		}
	}
}

func TestDeriveUsage(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"no subcommand", []string{"derive"}, 2, []string{"usage: artist derive"}},
		{"unknown subcommand", []string{"derive", "tau"}, 2, []string{`unknown subcommand "tau"`}},
		{"missing flags", []string{"derive", "bfcl", "-src", empty}, 2, []string{"-src and -out are required"}},
		{"extra argument", []string{"derive", "aime25", "-src", empty, "-out", "x", "y"}, 2, []string{`unexpected argument "y"`}},
		{"bfcl sources missing", []string{"derive", "bfcl", "-src", empty, "-out", filepath.Join(empty, "out")}, 1,
			[]string{"gorilla_file_system.py", "scripts/derive-bfcl-tables.sh"}},
		{"aime sources missing", []string{"derive", "aime25", "-src", empty, "-out", filepath.Join(empty, "t.jsonl")}, 1,
			[]string{filepath.Join("aime_2025_I", "answers.csv"), "scripts/fetch-data.sh"}},
		{"taubench sources missing", []string{"derive", "taubench", "-src", empty, "-out", filepath.Join(empty, "tau")}, 1,
			[]string{filepath.Join("airline", "tasks_test.py"), "scripts/fetch-data.sh"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(empty, "out")); err == nil {
		t.Error("a failed derive bfcl created its output folder")
	}
}

// TestDeriveCommand runs both derivations in process on the data folder's
// upstream copies.
func TestDeriveCommand(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI("derive", "bfcl", "-src", datadir.Require(t, "bfcl_v3/func_source_code"), "-out", filepath.Join(out, "bfcl"))
	if code != 0 {
		t.Fatalf("derive bfcl: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "reference_tables.json") {
		t.Errorf("stdout %q does not report the files", stdout)
	}
	for _, name := range []string{"reference_tables.json", "long_context_extensions.json"} {
		if !bytes.Equal(readFile(t, filepath.Join(out, "bfcl", name)), readFile(t, datadir.Require(t, "bfcl_v3/"+name))) {
			t.Errorf("derive bfcl: %s differs from the data folder's", name)
		}
	}
	target := filepath.Join(out, "aime", "test.jsonl")
	if code, _, stderr := runCLI("derive", "aime25", "-src", datadir.Require(t, "aime25/source"), "-out", target); code != 0 {
		t.Fatalf("derive aime25: exit %d: %s", code, stderr)
	}
	if !bytes.Equal(readFile(t, target), readFile(t, datadir.Require(t, "aime25/test.jsonl"))) {
		t.Error("derive aime25 differs from the data folder's aime25/test.jsonl")
	}
	tau := filepath.Join(out, "tau_bench")
	if code, _, stderr := runCLI("derive", "taubench", "-src", datadir.Require(t, "tau_bench/source"), "-out", tau); code != 0 {
		t.Fatalf("derive taubench: exit %d: %s", code, stderr)
	}
	checkTaubenchDerived(t, tau)
}

// checkTaubenchDerived compares the task and rules files derived under
// dir with the data folder's, byte for byte.
func checkTaubenchDerived(t *testing.T, dir string) {
	t.Helper()
	for env, splits := range taubench.Splits {
		names := []string{"rules.json"}
		for _, s := range splits {
			names = append(names, "tasks_"+s+".json")
		}
		for _, n := range names {
			rel := filepath.Join(env, n)
			if !bytes.Equal(readFile(t, filepath.Join(dir, rel)), readFile(t, datadir.Require(t, "tau_bench/"+env+"/"+n))) {
				t.Errorf("derived tau_bench/%s differs from the data folder's", rel)
			}
		}
	}
}
