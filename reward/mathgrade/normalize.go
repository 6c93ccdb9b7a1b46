package mathgrade

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalizers rewrite an answer towards a canonical spelling. normalize
// applies them in order until nothing changes. Each must be total on any
// string and either return its input unchanged or a strictly shorter
// string, so that normalize ends after at most len(s) passes.
var normalizers = []func(string) string{
	strings.TrimSpace,
	stripDelimiters,
	dropGroupSeparators,
	replaceSymbols,
	replaceCommands,
	unwrapWhole(`\boxed`),
	unwrapWhole(`\fbox`),
	dropTrailingText,
	listWords,
	unwrapAll(`\boxed`, `\fbox`, `\text`, `\textbf`, `\textrm`, `\textit`, `\textsf`, `\texttt`, `\textnormal`,
		`\mathrm`, `\mathbf`, `\mathit`, `\mathsf`, `\mbox`, `\emph`, `\hbox`, `\operatorname`),
	removeSpace,
	trimPeriod,
	dropUnitWord,
	percentWord,
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

// symbols maps spellings that are not commands to shorter canonical ones:
// dollar signs go (math delimiters and currency alike), LaTeX spacing goes,
// every spelling of a degree sign is °, {,} is a comma, and a few Unicode
// operators become ASCII. Earlier pairs win at a position.
var symbols = strings.NewReplacer(
	`\\`, `\\`, `\{`, `\{`, `\}`, `\}`, // escapes are kept whole: \\ is a row break, not \ then a space
	`\$`, ``, `$`, ``, `{,}`, `,`, `\!`, ``, `\,`, ``, `\;`, ``, `\:`, ``, `\ `, ``, `~`, ``,
	`^\circ`, `°`, `^{\circ}`, `°`, `^{\circ }`, `°`, `^°`, `°`, `^{°}`, `°`, `\%`, `%`,
	`−`, `-`, `×`, `*`, `·`, `*`, `÷`, `/`, `≤`, `<=`, `≥`, `>=`, `≠`, `!=`,
	`\left.`, ``, `\right.`, ``, `^{}`, ``, `\infinity`, `∞`, `infinity`, `∞`, `Infinity`, `∞`,
)

// symbolStarts holds the first characters of the keys of symbols, but for
// the letters of infinity.
const symbolStarts = "\\$~^{−×·÷≤≥≠"

// replaceSymbols applies symbols, skipping answers that hold none of them.
func replaceSymbols(s string) string {
	if !strings.ContainsAny(s, symbolStarts) && !strings.Contains(s, "nfinity") {
		return s
	}
	return symbols.Replace(s)
}

// commands maps whole command names (a backslash and letters, not followed
// by another letter) to shorter canonical spellings.
var commands = map[string]string{
	"dfrac": `\frac`, "tfrac": `\frac`, "cfrac": `\frac`, "dbinom": `\binom`, "tbinom": `\binom`,
	"left": "", "right": "", "bigl": "", "bigr": "", "Bigl": "", "Bigr": "", "big": "", "Big": "",
	"displaystyle": "", "quad": "", "qquad": "", "degree": "°", "textdegree": "°", "circ": "",
	"thinspace": "", "medspace": "", "thickspace": "", "enspace": "", "negthinspace": "", "lor": "∨", "vee": "∨",
	"pi": "π", "infty": "∞", "cdot": "*", "times": "*", "ast": "*", "div": "/", "pm": "±",
	"cup": "∪", "geq": ">=", "ge": ">=", "geqslant": ">=", "leq": "<=", "le": "<=", "leqslant": "<=",
	"neq": "!=", "ne": "!=", "lbrace": `\{`, "rbrace": `\}`, "langle": "(", "rangle": ")",
	"lvert": "|", "rvert": "|", "vert": "|", "lt": "<", "gt": ">",
	"varpi": "π",
}

// replaceCommands rewrites the commands of the commands table.
func replaceCommands(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); {
		name := commandName(s[i:])
		if name == "" {
			b.WriteByte(s[i])
			i++
			if i < len(s) && s[i-1] == '\\' { // an escaped character
				b.WriteByte(s[i])
				i++
			}
			continue
		}
		if to, ok := commands[name]; ok {
			b.WriteString(to)
			changed = true
		} else {
			b.WriteString(s[i : i+1+len(name)])
		}
		i += 1 + len(name)
	}
	if !changed {
		return s
	}
	return b.String()
}

// stripDelimiters removes math-mode delimiters around the whole answer:
// \(…\) or \[…\], as many layers as there are.
func stripDelimiters(s string) string {
	for {
		prev := s
		for _, d := range [][2]string{{`\(`, `\)`}, {`\[`, `\]`}} {
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
	open := cmd + "{"
	return func(s string) string {
		if !strings.HasPrefix(s, open) {
			return s
		}
		match := matchBraces(s) // indices into s; the window [lo, hi) shrinks
		lo, hi := 0, len(s)
		for strings.HasPrefix(s[lo:hi], open) {
			at := lo + len(cmd)
			if match[at] != hi-1 {
				break
			}
			lo, hi = at+1, hi-1
		}
		return s[lo:hi]
	}
}

// unitCommands may hold a unit after a number: 5\text{ cm}, 15\mbox{ cm}^2.
var unitCommands = []string{`\text`, `\mbox`, `\mathrm`, `\textrm`, `\textnormal`}

// dropTrailingText removes a text command at the end of an answer, with an
// optional square or cube, when something that is not a subscript or
// superscript comes before it: the text is a unit (5\text{ cm}).
func dropTrailingText(s string) string {
	body := s
	for _, p := range []string{"^2", "^3", "^{2}", "^{3}"} {
		if strings.HasSuffix(body, p) {
			body = body[:len(body)-len(p)]
			break
		}
	}
	if !strings.HasSuffix(body, "}") {
		return s
	}
	open := strings.LastIndexByte(body, '{')
	if open < 0 || strings.ContainsRune(body[open+1:len(body)-1], '}') {
		return s
	}
	for _, cmd := range unitCommands {
		if strings.HasSuffix(body[:open], cmd) {
			head := strings.TrimRightFunc(body[:open-len(cmd)], unicode.IsSpace)
			if head == "" || strings.HasSuffix(head, "_") || strings.HasSuffix(head, "^") ||
				strings.HasSuffix(head, "{") || strings.HasSuffix(head, `\`) {
				return s
			}
			return head
		}
	}
	return s
}

// unwrapAll returns a normalizer that replaces every cmd{x} by x for each
// of cmds, wherever it occurs, nested ones included. Unbalanced
// occurrences are left alone.
func unwrapAll(cmds ...string) func(string) string {
	return func(s string) string {
		first := -1
		for i := strings.IndexByte(s, '\\'); i >= 0 && i < len(s); {
			if commandAt(s, i, cmds) != "" {
				first = i
				break
			}
			j := strings.IndexByte(s[i+1:], '\\')
			if j < 0 {
				break
			}
			i += 1 + j
		}
		if first < 0 {
			return s
		}
		match := matchBraces(s)
		var drop []bool // closing braces of unwrapped commands
		var b strings.Builder
		b.WriteString(s[:first])
		for i := first; i < len(s); {
			if drop != nil && drop[i] {
				i++
				continue
			}
			if cmd := commandAt(s, i, cmds); cmd != "" {
				if close := match[i+len(cmd)]; close >= 0 {
					if drop == nil {
						drop = make([]bool, len(s))
					}
					drop[close] = true
					i += len(cmd) + 1
					continue
				}
			}
			b.WriteByte(s[i])
			i++
		}
		if drop == nil {
			return s
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
		if end := i + len(c); len(c) > len(best) && end < len(s) && s[end] == '{' && s[i:end] == c {
			best = c
		}
	}
	return best
}

// removeSpace deletes whitespace, except that one whitespace character
// stays between a command name and a letter (\cot x is not \cotx), and
// after a comma between digits where three digits follow (1, 234 is a list
// of two numbers, not 1,234).
func removeSpace(s string) string {
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsSpace(r2) {
				break
			}
			j += n2
		}
		if j < len(s) && isLetter(s[j]) && endsWithCommand(s[:i]) || listCommaAt(s, i, j) {
			b.WriteString(s[i : i+n])
		}
		i = j
	}
	return b.String()
}

// listCommaAt reports whether the whitespace s[i:j] follows a comma that
// follows a digit, and is followed by exactly three digits: a space that
// tells a list from a thousands separator.
func listCommaAt(s string, i, j int) bool {
	return i >= 2 && s[i-1] == ',' && isDigit(s[i-2]) && threeDigits(s[j:])
}

// threeDigits reports whether s starts with exactly three digits.
func threeDigits(s string) bool {
	return len(s) >= 3 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2]) && (len(s) == 3 || !isDigit(s[3]))
}

// groupSeparators are LaTeX spellings that separate groups of digits.
var groupSeparators = []string{`{,}`, `,\!`}

// dropGroupSeparators removes {,} and ,\! (and spaces after them) between
// a digit and exactly three digits: they separate thousands, so 1{,}000 is
// 1000 even inside a tuple, where a plain comma would separate items.
// Other occurrences are left to symbols.
func dropGroupSeparators(s string) string {
	if !strings.Contains(s, `{,}`) && !strings.Contains(s, `,\!`) {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 1; i < len(s); i++ {
		if !isDigit(s[i-1]) {
			continue
		}
		for _, sep := range groupSeparators {
			if !strings.HasPrefix(s[i:], sep) {
				continue
			}
			j := i + len(sep)
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if threeDigits(s[j:]) {
				b.WriteString(s[last:i])
				last = j
				i = j - 1
			}
			break
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// endsWithCommand reports whether s ends with a backslash and letters.
func endsWithCommand(s string) bool {
	i := len(s)
	for i > 0 && isLetter(s[i-1]) {
		i--
	}
	return i < len(s) && i > 0 && s[i-1] == '\\'
}

func trimPeriod(s string) string { return strings.TrimRight(s, ".") }

// units are the unit words dropped after a number. Single letters are not
// among them: they are variables (6m is not 6 metres).
var units = func() map[string]bool {
	m := map[string]bool{}
	for _, u := range strings.Fields(`cm mm km meter meters metre metres inch inches feet foot ft
		yard yards yd mile miles unit units degree degrees deg cent cents dollar dollars second seconds
		sec minute minutes min hour hours hr hrs day days week weeks month months year years mph kg
		gram grams pound pounds lb lbs ounce ounces oz liter liters litre litres ml people person persons
		student students ways point points`) {
		m[u] = true
	}
	return m
}()

// dropUnitWord removes a unit word, optionally squared or cubed, after a
// number (a digit, a closing brace or a decimal point): 20cm, 15ft^2.
func dropUnitWord(s string) string {
	body := s
	for _, p := range []string{"^2", "^3", "^{2}", "^{3}"} {
		if strings.HasSuffix(body, p) {
			body = body[:len(body)-len(p)]
			break
		}
	}
	i := len(body)
	for i > 0 && isLetter(body[i-1]) {
		i--
	}
	if i == 0 || i == len(body) || !units[body[i:]] {
		return s
	}
	if c := body[i-1]; !isDigit(c) && c != '}' && c != '.' {
		return s
	}
	return body[:i]
}

// listWordRe matches "and" and "or" between the items of a list: as words
// between spaces, or alone in a text command (\text{ and }).
var listWordRe = regexp.MustCompile(`\s*\\(?:text|mbox|textrm|mathrm)\{\s*(and|or)\s*\}\s*|\s+(and|or)\s+`)

// listWords rewrites "and" between list items as ", " and "or" as ∨ (read
// as a list, or a union of inequalities; see listOfAlternatives): 3
// \text{ and } 9 is 3, 9.
func listWords(s string) string {
	if !hasListWord(s, "and") && !hasListWord(s, "or") {
		return s
	}
	return listWordRe.ReplaceAllStringFunc(s, func(m string) string {
		if strings.Contains(m, "and") {
			return ", "
		}
		return "∨"
	})
}

// hasListWord reports whether w occurs in s after a space or an opening
// brace and before a space or a closing brace: where listWordRe may
// match.
func hasListWord(s, w string) bool {
	for i := strings.Index(s, w); i >= 0; {
		j := i + len(w)
		if i > 0 && j < len(s) && strings.IndexByte(" \t\n{", s[i-1]) >= 0 && strings.IndexByte(" \t\n}", s[j]) >= 0 {
			return true
		}
		k := strings.Index(s[j:], w)
		if k < 0 {
			break
		}
		i = j + k
	}
	return false
}

// percentWord writes the word percent after a number as %: 45percent
// (45 percent once spaces are gone) is 45%.
func percentWord(s string) string {
	body, ok := strings.CutSuffix(s, "percent")
	if !ok || body == "" {
		return s
	}
	if c := body[len(body)-1]; !isDigit(c) && c != '}' && c != '.' {
		return s
	}
	return body + "%"
}
