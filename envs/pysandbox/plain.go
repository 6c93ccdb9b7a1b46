package pysandbox

import (
	"context"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs"
)

// Plain workers. A stateless call's cost is mostly the fork of its
// runner, and a fork costs by the size of the interpreter forked: one
// holding numpy, sympy and mpmath (BenchmarkForkFloor times its fork)
// is several times the size of one holding only the standard library's
// modules that math code imports most (runner.py's PLAIN); in
// BenchmarkVersus a fresh call costs about two thirds as much in a plain
// worker as in a full one. So beside its
// full workers a sandbox keeps as many plain ones, which have only those
// loaded, and runs there every stateless call whose code names none of
// the libraries. A plain runner that meets an import of a library anyway
// (built at run time, or from a name the code does not spell) answers
// statusLibraries before that import runs, and the call runs again, from
// the start, in a full worker, with the time it has left. Nothing of the
// first try outlives it (its runner ends with it and /tmp is emptied),
// so a call's outcome is the same as in a full worker; it prints the
// same, except what tells the two interpreters apart (sys.modules).

// statusLibraries is a plain worker's reply to code that imports a
// library it has not loaded. It never leaves the package.
const statusLibraries envs.Status = "libraries"

// libraryNames returns the import names of the libraries a full worker
// reported ("numpy 1.24.2" -> "numpy"), the interpreter's line excepted.
func libraryNames(libs []string) []string {
	var names []string
	for _, l := range libs[min(1, len(libs)):] {
		if name, _, _ := strings.Cut(l, " "); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// namesAny reports whether code contains any of names.
func namesAny(code string, names []string) bool {
	for _, n := range names {
		if strings.Contains(code, n) {
			return true
		}
	}
	return false
}

// runPlain runs req, a stateless call, in a plain worker when s has them
// and its code names none of the libraries. It returns the reply, and
// false when the call is to run in a full worker instead; then budget is
// the time the call has left there (the time allowed from the moment a
// worker was free, less what the plain try took).
func (s *Sandbox) runPlain(ctx context.Context, req request) (rep reply, done bool, budget func(context.Context) time.Duration) {
	if s.plain == nil || req.Session != 0 || namesAny(req.Code, s.libNames) {
		return reply{}, false, s.budget
	}
	var from time.Time
	var granted time.Duration
	rep = s.plain.Run(ctx, nil, func(ctx context.Context) time.Duration {
		from, granted = time.Now(), s.budget(ctx)
		return granted
	}, req)
	if rep.Status != statusLibraries {
		return rep, true, nil
	}
	spent := time.Since(from)
	return reply{}, false, func(ctx context.Context) time.Duration { return min(s.budget(ctx), granted-spent) }
}
