package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirOrder(t *testing.T) {
	cases := []struct {
		flag, env string
		dir       string
		src       Source
	}{
		{"", "", "data", FromDefault},
		{"", "/mirror", "/mirror", FromEnv},
		{"here", "/mirror", "here", FromFlag},
		{"here", "", "here", FromFlag},
	}
	for i, c := range cases {
		t.Setenv(EnvVar, c.env)
		if dir, src := Dir(c.flag); dir != c.dir || src != c.src {
			t.Errorf("case %d: Dir(%q) with %s=%q = %q, %s; want %q, %s", i, c.flag, EnvVar, c.env, dir, src, c.dir, c.src)
		}
	}
}

func TestPathFollowsEnvAndAliases(t *testing.T) {
	root := t.TempDir()
	alias := filepath.Join(root, "math_train_substitute", "deepscaler_math_train.json")
	if err := os.MkdirAll(filepath.Dir(alias), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alias, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, root)
	cases := []struct{ in, want string }{
		{"data/bfcl_v3", filepath.Join(root, "bfcl_v3")},
		{"./data/tau_bench", filepath.Join(root, "tau_bench")},
		{"data/math_train/math.json", alias},
		{"testdata/bench", "testdata/bench"},
		{"database/x", "database/x"},
		{"/abs/data/bfcl_v3", "/abs/data/bfcl_v3"},
		{"", ""},
	}
	for i, c := range cases {
		if got := Path(c.in); got != c.want {
			t.Errorf("case %d: Path(%q) = %q, want %q", i, c.in, got, c.want)
		}
	}
	t.Setenv(EnvVar, "")
	if got := Path("data/bfcl_v3"); got != filepath.Join("data", "bfcl_v3") {
		t.Errorf("without %s: Path = %q, want data/bfcl_v3", EnvVar, got)
	}
}

func TestExplainNamesTheThreeWays(t *testing.T) {
	_, missing := os.Open(filepath.Join("data", "math500", "test.jsonl"))
	wrapped := fmt.Errorf("mathtask: %w", missing)
	err := Explain(wrapped, "data", FromDefault)
	for _, want := range []string{"math500/test.jsonl", "-data DIR", EnvVar, "scripts/fetch-data.sh", "neither -data nor"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Explain: %v; want it to contain %q", err, want)
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Explain lost the cause: %v", err)
	}
	if again := Explain(err, "data", FromDefault); again != err {
		t.Errorf("Explain twice wrapped again: %v", again)
	}
	if got := Explain(wrapped, "/elsewhere", FromFlag); got != wrapped {
		t.Errorf("a file outside the data folder was explained: %v", got)
	}
	other := errors.New("bad json")
	if got := Explain(other, "data", FromEnv); got != other {
		t.Errorf("Explain changed an unrelated error: %v", got)
	}
	if Explain(nil, "data", FromEnv) != nil {
		t.Error("Explain(nil) != nil")
	}
}
