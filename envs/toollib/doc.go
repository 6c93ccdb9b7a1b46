// Package toollib is a library of Go functions that a policy retrieves and
// grows, after ATLASS: each tool is a documented function with examples
// that serve as its tests, kept in a JSON file.
//
// A tool is written as ordinary Go, its examples as doc comment lines of
// the form EXPR == WANT, where WANT is what fmt.Println prints for EXPR:
//
//	// gcd returns the greatest common divisor of a and b.
//	//
//	//	gcd(12, 18) == 6
//	func gcd(a, b int) int { ... }
//
// ParseTool reads one; Verify runs its examples in the code tool; a Library
// admits only tools whose examples pass, and Search ranks them by BM25 for
// a query. Augment wraps the code tool for rollouts: the snippets of a
// trajectory get the source of the tools retrieved for its task prepended
// (the prelude), so the policy can call them without defining them, and,
// with Grow, documented functions the policy writes itself join the
// library once their examples pass.
//
// Tools may use only the packages a snippet has pre-imported (fmt, math,
// strconv, strings): a prelude carries no import declarations.
package toollib
