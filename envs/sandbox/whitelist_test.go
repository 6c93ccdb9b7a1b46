package sandbox

import (
	"context"
	"strings"
	"testing"
)

// TestInterpreterWhitelist proves the interpreter itself refuses packages
// outside the whitelist, without the import check that runs before it.
func TestInterpreterWhitelist(t *testing.T) {
	for _, pkg := range []string{
		"os", "os/exec", "io/ioutil", "path/filepath", "net", "syscall", "unsafe", "reflect",
		"runtime", "plugin", "log", "time", "github.com/traefik/yaegi/interp", "github.com/traefik/yaegi/stdlib",
	} {
		t.Run(pkg, func(t *testing.T) {
			m, err := newMachine(false)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.in.EvalWithContext(context.Background(), `import "`+pkg+`"`)
			if err == nil || !strings.Contains(err.Error(), "unable to find source related to") {
				t.Errorf("importing %q: error %v, want the package not found", pkg, err)
			}
		})
	}
	for _, pkg := range allowedPackages {
		m, err := newMachine(false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err = m.in.EvalWithContext(context.Background(), `import _ "`+pkg+`"`); err != nil {
			t.Errorf("importing allowed package %q: %v", pkg, err)
		}
	}
}
