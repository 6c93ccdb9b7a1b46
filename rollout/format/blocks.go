package format

// Reading the tag blocks of a tags-style response.

import "strings"

// HasPair reports whether s holds an opening tag of name and, after it,
// a closing one.
func HasPair(s, name string) bool {
	i := strings.Index(s, Open(name))
	return i >= 0 && strings.Contains(s[i+len(Open(name)):], Close(name))
}

// CloseBlock reads the body of a block of kind k (an index into names)
// from s, which starts just after the block's opening tag, and returns
// what follows its closing tag: the first closing tag of the same name.
// ok is false when the block is not closed or, unless k is opaque (the
// tool's result, whose text is not the policy's), its body holds a tag of
// names.
func CloseBlock(s string, names []string, k, opaque int) (rest string, ok bool) {
	end := strings.Index(s, Close(names[k]))
	if end < 0 || k != opaque && hasTag(s[:end], names) {
		return "", false
	}
	return s[end+len(Close(names[k])):], true
}

func hasTag(s string, names []string) bool {
	for _, n := range names {
		if strings.Contains(s, Open(n)) || strings.Contains(s, Close(n)) {
			return true
		}
	}
	return false
}
