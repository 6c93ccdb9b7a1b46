package tools

// caesarShift applies the Caesar cipher to text: each letter moves shift
// places along the alphabet, wrapping around; other characters stay.
//
//	caesarShift("attack at dawn", 3) == "dwwdfn dw gdzq"
//	caesarShift("Abc", -1) == "Zab"
func caesarShift(text string, shift int) string {
	shift = (shift%26 + 26) % 26
	out := []rune(text)
	for i, c := range out {
		switch {
		case c >= 'a' && c <= 'z':
			out[i] = 'a' + (c-'a'+rune(shift))%26
		case c >= 'A' && c <= 'Z':
			out[i] = 'A' + (c-'A'+rune(shift))%26
		}
	}
	return string(out)
}
