package tools

// wordCount returns the number of words in text, a word being a run of
// characters between spaces.
//
//	wordCount("the quick brown fox") == 4
//	wordCount("  ") == 0
func wordCount(text string) int {
	return len(strings.Fields(text))
}
