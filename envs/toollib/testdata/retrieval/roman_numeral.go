package tools

// romanNumeral writes n (1 to 3999) in Roman numerals, such as XIV.
//
//	romanNumeral(1994) == "MCMXCIV"
//	romanNumeral(4) == "IV"
func romanNumeral(n int) string {
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var b strings.Builder
	for i, v := range vals {
		for n >= v {
			b.WriteString(syms[i])
			n -= v
		}
	}
	return b.String()
}
