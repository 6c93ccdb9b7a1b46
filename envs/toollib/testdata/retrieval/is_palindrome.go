package tools

// isPalindrome reports whether text reads the same forwards and
// backwards, comparing letters and digits only and ignoring case.
//
//	isPalindrome("A man, a plan, a canal: Panama") == true
//	isPalindrome("hello") == false
func isPalindrome(text string) bool {
	var r []rune
	for _, c := range strings.ToLower(text) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			r = append(r, c)
		}
	}
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		if r[i] != r[j] {
			return false
		}
	}
	return true
}
