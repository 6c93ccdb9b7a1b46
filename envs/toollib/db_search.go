package toollib

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Column weights of the bm25() ranking, in the column order of tools_fts
// (name, description, signature, examples): a word of the name counts
// twice a word of the description, which counts twice one of the
// signature or the examples.
const ftsWeights = "2.0, 1.0, 0.5, 0.5"

// Search returns up to k tools in the given states (approved only when
// none is given) that best match query, ranked by SQLite FTS5's bm25()
// over each tool's name (also split into words: isPrime is "is prime"),
// description, signature and examples, with the porter stemmer ("primes"
// finds "prime"). The query is read as words (see words); a tool matching
// any of them is a candidate. Ties are broken by name; a query without
// words finds nothing.
func (d *DB) Search(ctx context.Context, query string, k int, states ...State) ([]Record, error) {
	in, args, err := stateFilter(states)
	if err != nil {
		return nil, err
	}
	match := ftsQuery(query)
	if k <= 0 || match == "" {
		return nil, nil
	}
	q := `SELECT ` + toolColumns("tools") + ` FROM tools_fts JOIN tools ON tools.id = tools_fts.rowid
		WHERE tools_fts MATCH ? AND tools.state IN (` + in + `)
		ORDER BY bm25(tools_fts, ` + ftsWeights + `), tools.name LIMIT ?`
	return d.query(ctx, q, append(append([]any{match}, args...), k)...)
}

// ftsQuery is the FTS5 query of text: its distinct words of two letters
// or more, quoted, joined by OR; "" when it has none. Single letters are
// left out because the index holds signatures and examples, where they
// are parameter names: the x of a task says nothing about a tool's x.
func ftsQuery(text string) string {
	var ws []string
	for _, w := range words(text) {
		if utf8.RuneCountInString(w) > 1 {
			ws = append(ws, `"`+w+`"`)
		}
	}
	slices.Sort(ws)
	return strings.Join(slices.Compact(ws), " OR ")
}

// index stores the search entry of tool id.
func index(ctx context.Context, tx *sql.Tx, id int64, t Tool) error {
	examples := make([]string, len(t.Cases))
	for i, c := range t.Cases {
		examples[i] = caseLine(c)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO tools_fts (rowid, name, description, signature, examples) VALUES (?, ?, ?, ?, ?)`,
		id, t.Name+" "+strings.Join(words(t.Name), " "), t.Doc, strings.Join(words(t.Signature), " "), strings.Join(examples, "\n"))
	if err != nil {
		return fmt.Errorf("index %s: %w", t.Name, err)
	}
	return nil
}

// stopWords are dropped from queries: task prompts are full sentences,
// and a tool should not be retrieved for sharing "the" with one.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be by for from how if in is it its of on or that the this to what when which with") {
		stopWords[w] = true
	}
}

// words splits s into lowercased words: runs of letters, cut where a lower
// case letter meets an upper case one ("isPrime") and before the last of a
// run of capitals that a lower case letter follows ("parseHTTPRequest"),
// stop words dropped.
func words(s string) []string {
	var out []string
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		rs := []rune(run)
		start := 0
		for i := 1; i < len(rs); i++ {
			lowerUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
			acronymEnd := unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if lowerUpper || acronymEnd {
				out = appendWord(out, string(rs[start:i]))
				start = i
			}
		}
		out = appendWord(out, string(rs[start:]))
	}
	return out
}

func appendWord(out []string, w string) []string {
	w = strings.ToLower(w)
	if stopWords[w] {
		return out
	}
	return append(out, w)
}
