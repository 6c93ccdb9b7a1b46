// Package pyval models Python values in Go, for ports of Python
// environments whose outputs and state hashes must match the reference
// byte for byte.
//
// The dynamic types of a value are:
//
//	nil      None
//	bool     bool
//	int64    int
//	float64  float
//	string   str
//	[]any    list (a tuple decodes to a list)
//	*Dict    dict, ordered by insertion, keys string or int64
//
// The contracts, each matching CPython 3.11:
//
//   - DecodeJSON is json.loads: objects keep their key order, a number with
//     ".", "e" or "E" is a float and any other an int (ints beyond 64 bits
//     are errors).
//   - JSON is json.dumps with default options (", " and ": " separators,
//     insertion order, non-ASCII escaped as \uXXXX); JSONUnicode is the same
//     with ensure_ascii=False.
//   - Repr is repr(), Str is str(), FormatFloat is float.__repr__.
//   - Equal is ==: numbers compare by value across bool, int and float
//     (True == 1 == 1.0), lists in order, dicts ignoring order. Identical
//     reports whether two values also agree in type and key order, which is
//     what a hash of their text form distinguishes.
//   - Add, Sub, Mul, Neg, Abs and Round keep Python's int/float typing: int
//     op int is an int, any float operand gives a float; Round(x, n) of an
//     int stays an int.
//
// The lexical pieces of Python source (lex.go) are shared too: ScanString,
// SplitLiteral and Unescape read string literals with their prefixes and
// escapes, ScanNumber, ScanName and Operator delimit the other tokens, for
// the readers of Python text (the BFCL class deriver, the tau-bench task
// reader, the chat template lexer).
//
// The package is shared by the environment ports so that Python value
// semantics have one implementation.
package pyval
