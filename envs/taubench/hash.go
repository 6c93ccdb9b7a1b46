package taubench

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"sort"

	"github.com/artist-rl/artist/internal/pyval"
)

// Hash returns the reference's database hash: the SHA-256, in lower-case
// hex, of Python's str() of the value turned into nested tuples, where an
// object becomes the tuple of its (key, value) pairs sorted by key and a
// list the tuple of its elements. Key order inside records therefore does
// not count, but int versus float does (100 and 100.0 differ).
func Hash(v any) string {
	h := sha256.New()
	w := bufio.NewWriterSize(h, 1<<16)
	writeTuple(w, v)
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// TupleString returns the text that Hash hashes.
func TupleString(v any) string {
	var b stringWriter
	w := bufio.NewWriter(&b)
	writeTuple(w, v)
	w.Flush()
	return string(b)
}

type stringWriter []byte

func (s *stringWriter) Write(p []byte) (int, error) { *s = append(*s, p...); return len(p), nil }

func writeTuple(w *bufio.Writer, v any) {
	switch x := v.(type) {
	case *pyval.Dict:
		keys := make([]string, 0, x.Len())
		for _, k := range x.Keys() {
			keys = append(keys, pyval.Str(k))
		}
		sort.Strings(keys)
		writeSeq(w, len(keys), func(i int) {
			val, _ := x.Get(keys[i])
			w.WriteString("(")
			w.WriteString(pyval.ReprString(keys[i]))
			w.WriteString(", ")
			writeTuple(w, val)
			w.WriteString(")")
		})
	case []any:
		writeSeq(w, len(x), func(i int) { writeTuple(w, x[i]) })
	default:
		io.WriteString(w, pyval.Repr(v))
	}
}

// writeSeq writes a Python tuple of n elements: "(a, b)", "(a,)" or "()".
func writeSeq(w *bufio.Writer, n int, elem func(i int)) {
	w.WriteByte('(')
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteString(", ")
		}
		elem(i)
	}
	if n == 1 {
		w.WriteByte(',')
	}
	w.WriteByte(')')
}
