package reward

import (
	"math/big"
	"regexp"
	"strings"
	"unicode"

	"github.com/artist-rl/artist/rollout"
)

// MaxAnswerLen is the longest answer, in bytes, that Equal compares; longer
// answers are never equal to anything. It bounds the grader's time.
const MaxAnswerLen = 4096

// Extract returns the final answer written in response: the content of the
// last complete answer block (an opening answer tag followed by a closing
// one), trimmed of surrounding space. Without any complete answer block it
// falls back to the content of the last \boxed{...} whose braces balance.
// Text inside complete output blocks is ignored: the tool wrote it, not the
// policy. ok is false when neither an answer block nor a boxed answer exists.
func Extract(response string, f rollout.Format) (answer string, ok bool) {
	text := dropBlocks(response, rollout.Open(f.Output), rollout.Close(f.Output))
	if s, ok := lastBlock(text, rollout.Open(f.Answer), rollout.Close(f.Answer)); ok {
		return strings.TrimSpace(s), true
	}
	if s, ok := lastBoxed(text); ok {
		return strings.TrimSpace(s), true
	}
	return "", false
}

// lastBlock returns the content of the last complete open…close block.
func lastBlock(s, open, close string) (string, bool) {
	end := strings.LastIndex(s, close)
	if end < 0 {
		return "", false
	}
	start := strings.LastIndex(s[:end], open)
	if start < 0 {
		return "", false
	}
	return s[start+len(open) : end], true
}

// dropBlocks removes every complete open…close block, tags included. An
// opening tag without a closing one is kept as text.
func dropBlocks(s, open, close string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(open):], close)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		s = s[i+len(open)+j+len(close):]
	}
	b.WriteString(s)
	return b.String()
}

// matchBraces returns, for every index i of s, the index of the '}' that
// matches a '{' at i, or -1. It runs in one pass.
func matchBraces(s string) []int {
	match := make([]int, len(s))
	var stack []int
	for i := 0; i < len(s); i++ {
		match[i] = -1
		switch s[i] {
		case '{':
			stack = append(stack, i)
		case '}':
			if n := len(stack); n > 0 {
				match[stack[n-1]] = i
				stack = stack[:n-1]
			}
		}
	}
	return match
}

// lastBoxed returns the content of the last \boxed{...} whose opening brace
// is matched.
func lastBoxed(s string) (string, bool) {
	const cmd = `\boxed{`
	if !strings.Contains(s, cmd) {
		return "", false
	}
	match := matchBraces(s)
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], cmd)
		if i < 0 {
			return "", false
		}
		open := i + len(cmd) - 1
		if close := match[open]; close >= 0 {
			return s[open+1 : close], true
		}
		end = i
	}
}

// Equal reports whether pred and gold are the same answer under math
// equivalence. Both are first normalised: surrounding space, math
// delimiters ($…$, $$…$$, \(…\), \[…\]) and a \boxed{} around the whole
// answer are removed, \text{x} (and \textbf, \textrm, \mathrm, \mathbf,
// \mbox) becomes x, \dfrac and \tfrac become \frac, LaTeX spacing
// commands, all whitespace and trailing periods go. Then two answers are
// equal when their normalised strings are, or when both are numbers of the
// same exact value: integers, decimals, numbers with thousands separators
// ("1,234"), fractions a/b and \frac{a}{b}, each with an optional sign.
// Percentages, units, intervals and expressions are not interpreted.
//
// An answer that normalises to the empty string, or is longer than
// MaxAnswerLen, is never equal. Equal is symmetric, takes time at most
// quadratic in MaxAnswerLen, and never panics.
func Equal(pred, gold string) bool {
	if len(pred) > MaxAnswerLen || len(gold) > MaxAnswerLen {
		return false
	}
	p, g := normalize(pred), normalize(gold)
	if p == "" || g == "" {
		return false
	}
	for _, eq := range equivalences {
		if eq(p, g) {
			return true
		}
	}
	return false
}

// equivalences are tried in order on normalised answers; each must be
// symmetric. Add richer checks (intervals, tuples, symbolic) here.
var equivalences = []func(p, g string) bool{
	func(p, g string) bool { return p == g },
	sameNumber,
}

// normalizers rewrite an answer towards a canonical spelling. normalize
// applies them in order until nothing changes. Each must be total on any
// string and either return its input unchanged or a strictly shorter
// string, so that normalize ends after at most len(s) passes.
var normalizers = []func(string) string{
	strings.TrimSpace,
	stripDelimiters,
	unwrapWhole(`\boxed`),
	unwrapAll(`\text`, `\textbf`, `\textrm`, `\mathrm`, `\mathbf`, `\mbox`),
	strings.NewReplacer(`\dfrac`, `\frac`, `\tfrac`, `\frac`, `{,}`, `,`,
		`\!`, ``, `\,`, ``, `\;`, ``, `\:`, ``).Replace,
	removeSpace,
	trimPeriod,
}

// normalize returns the canonical spelling of an answer; it is idempotent.
func normalize(s string) string {
	for {
		prev := s
		for _, n := range normalizers {
			s = n(s)
		}
		if s == prev {
			return s
		}
	}
}

// stripDelimiters removes math-mode delimiters around the whole answer:
// $$…$$, $…$, \(…\) or \[…\], as many layers as there are.
func stripDelimiters(s string) string {
	for {
		prev := s
		for _, d := range [][2]string{{"$$", "$$"}, {"$", "$"}, {`\(`, `\)`}, {`\[`, `\]`}} {
			if len(s) >= len(d[0])+len(d[1]) && strings.HasPrefix(s, d[0]) && strings.HasSuffix(s, d[1]) {
				s = s[len(d[0]) : len(s)-len(d[1])]
				break
			}
		}
		if s == prev {
			return s
		}
	}
}

// unwrapWhole returns a normalizer that replaces cmd{x} by x, as many
// layers as there are, while it spans the whole answer.
func unwrapWhole(cmd string) func(string) string {
	return func(s string) string {
		if !strings.HasPrefix(s, cmd+"{") {
			return s
		}
		match := matchBraces(s) // indices into s; the window [lo, hi) shrinks
		lo, hi := 0, len(s)
		for strings.HasPrefix(s[lo:hi], cmd+"{") {
			open := lo + len(cmd)
			if match[open] != hi-1 {
				break
			}
			lo, hi = open+1, hi-1
		}
		return s[lo:hi]
	}
}

// unwrapAll returns a normalizer that replaces every cmd{x} by x for each
// of cmds, wherever it occurs, nested ones included. Unbalanced
// occurrences are left alone.
func unwrapAll(cmds ...string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, "{") {
			return s
		}
		match := matchBraces(s)
		drop := map[int]bool{} // closing braces of unwrapped commands
		var b strings.Builder
		for i := 0; i < len(s); {
			if drop[i] {
				i++
				continue
			}
			if cmd := commandAt(s, i, cmds); cmd != "" {
				if close := match[i+len(cmd)]; close >= 0 {
					drop[close] = true
					i += len(cmd) + 1
					continue
				}
			}
			b.WriteByte(s[i])
			i++
		}
		return b.String()
	}
}

// commandAt returns the longest cmd in cmds such that s[i:] starts with
// cmd followed by '{', or "".
func commandAt(s string, i int, cmds []string) string {
	if s[i] != '\\' {
		return ""
	}
	best := ""
	for _, c := range cmds {
		if len(c) > len(best) && strings.HasPrefix(s[i:], c+"{") {
			best = c
		}
	}
	return best
}

func removeSpace(s string) string {
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), "")
}

func trimPeriod(s string) string { return strings.TrimRight(s, ".") }

var (
	numeralRe   = regexp.MustCompile(`^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$`)
	thousandsRe = regexp.MustCompile(`^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?$`)
	fracRe      = regexp.MustCompile(`^([+-]?)\\frac(?:\{([^{}]*)\}\{([^{}]*)\}|(\d)(\d))$`)
)

// sameNumber reports whether p and g are both numbers with the same exact
// value.
func sameNumber(p, g string) bool {
	x, ok := parseNumber(p)
	if !ok {
		return false
	}
	y, ok := parseNumber(g)
	return ok && x.Cmp(y) == 0
}

// parseNumber reads an integer, a decimal (exactly), a number with
// thousands separators, a fraction a/b or a \frac{a}{b} (\frac12 too), each
// with an optional sign, where a and b are integers or decimals.
func parseNumber(s string) (*big.Rat, bool) {
	if m := fracRe.FindStringSubmatch(s); m != nil {
		num, den := m[2], m[3]
		if m[4] != "" {
			num, den = m[4], m[5]
		}
		return ratio(m[1]+num, den)
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return ratio(s[:i], s[i+1:])
	}
	return parseNumeral(s)
}

func ratio(num, den string) (*big.Rat, bool) {
	a, ok := parseNumeral(num)
	if !ok {
		return nil, false
	}
	b, ok := parseNumeral(den)
	if !ok || b.Sign() == 0 {
		return nil, false
	}
	return a.Quo(a, b), true
}

// parseNumeral reads a signed integer or decimal, with optional thousands
// separators, exactly.
func parseNumeral(s string) (*big.Rat, bool) {
	if thousandsRe.MatchString(s) {
		s = strings.ReplaceAll(s, ",", "")
	}
	if !numeralRe.MatchString(s) {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(strings.TrimSuffix(s, "."))
	return r, ok
}
