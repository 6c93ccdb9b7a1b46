package tools

// titleCase returns text with the first letter of every word in upper
// case and the others unchanged; words are separated by spaces.
//
//	titleCase("the old man and the sea") == "The Old Man And The Sea"
//	titleCase("") == ""
func titleCase(text string) string {
	words := strings.Split(text, " ")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
