package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSandboxLang(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct {
		lang, file, source, want string
	}{
		{"go", "a.go", "fmt.Println(6 * 7)", `"stdout":"42\n"`},
		{"python", "a.py", "print(6 * 7)", `"stdout":"42\n"`},
		{"python", "b.py", "1 / 0", `"error":"ZeroDivisionError: division by zero"`},
	} {
		path := filepath.Join(dir, tc.file)
		if err := os.WriteFile(path, []byte(tc.source), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		if err := runSandbox(context.Background(), []string{"-lang", tc.lang, path}, &out, &errOut); err != nil {
			t.Fatalf("case %d: %v: %s", i, err, errOut.String())
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("case %d: printed %s, want %s", i, out.String(), tc.want)
		}
	}
	var out, errOut bytes.Buffer
	if err := runSandbox(context.Background(), []string{"-lang", "rust", "-"}, &out, &errOut); err != errUsage || !strings.Contains(errOut.String(), "use go or python") {
		t.Errorf("-lang rust = %v %q, want a usage error naming go and python", err, errOut.String())
	}
}
