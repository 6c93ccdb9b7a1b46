package tools

// countVowels returns how many vowels (a, e, i, o, u, either case) the
// string s holds.
//
//	countVowels("encyclopedia") == 5
//	countVowels("rhythm") == 0
func countVowels(s string) int {
	n := 0
	for _, c := range strings.ToLower(s) {
		if strings.ContainsRune("aeiou", c) {
			n++
		}
	}
	return n
}
