// Package toollib is a database of Go functions that a policy retrieves
// and grows, after ATLASS: each tool is a documented function with
// examples that serve as its tests, verified in the code tool, stored in
// SQLite with where it came from and whether a person approved it.
//
// # Tools and their examples
//
// A tool is written as ordinary Go, its examples as doc comment lines of
// the form EXPR == WANT, where EXPR calls the function and WANT is the
// value it must return, written in Go:
//
//	// gcd returns the greatest common divisor of a and b.
//	//
//	//	gcd(12, 18) == 6
//	func gcd(a, b int) int { ... }
//
// Other tools' examples read like these:
//
//	reverse("hello") == "olleh"
//	compound(1000, 0.1, 2) == 1210.0000000000002
//	third(1) == 0.3333 (±1e-4)
//	divmod(7, 2) == 3, nil
//	evens(5) == []int{0, 2, 4}
//
// WANT may be any Go literal or constant expression (6, -3, 2.5, 0x41,
// "a\tb", `raw`, 'é', true, nil, math.Pi/2), a composite literal
// ([]int{1, 2}, map[string]int{"a": 1}, struct{ X, Y int }{1, 2},
// [2]int{3, -3}), or a comma-separated list with one value per result of a
// function with several. Verify compares as Go would: == against the
// result, so an untyped constant takes the result's type; composite
// literals by their Go-syntax rendering, which must match in type and
// contents; and, with a tolerance written after the value as (±TOL) or
// (+-TOL), |got - want| <= TOL for a numeric result. A WANT may not call
// the tool itself. A failing example reports got (in Go syntax) and want.
//
// ParseTool reads one tool; Verify runs its examples in the code tool.
// Tools may use only the packages a snippet has pre-imported (fmt, math,
// strconv, strings): a prelude carries no import declarations.
//
// # The database
//
// OpenDB opens (creating and migrating) an SQLite file in WAL mode, which
// several processes may read while one writes. Add verifies a tool before
// storing it; a tool starts pending, approved or rejected, with its
// Provenance (task, run, and whether a person, the ATLASS generator, a
// rollout or an import made it). Approve and Reject record who decided,
// when, and why a tool was rejected. Search ranks tools by FTS5's bm25()
// over name, description, signature and examples, approved ones only
// unless other states are asked for; MarkUsed counts uses. Import reads
// the JSON library files of earlier versions; OpenDB refuses such a file
// with the command that converts it.
//
// Only approved tools are retrieved for solving and rollouts: a pending
// tool runs nowhere but inside its own verification.
//
// # Rollouts
//
// Augment wraps the code tool for rollouts: the snippets of a trajectory
// get the source of the approved tools retrieved for its task prepended
// (the prelude), so the policy can call them without defining them, and,
// with Grow, documented functions the policy writes itself join the
// database once their examples pass, as pending unless AutoApprove is
// set.
package toollib
