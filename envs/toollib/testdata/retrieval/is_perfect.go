package tools

// isPerfect reports whether n is a perfect number: equal to the sum of
// its proper divisors (those less than n).
//
//	isPerfect(28) == true
//	isPerfect(12) == false
func isPerfect(n int) bool {
	if n < 2 {
		return false
	}
	s := 1
	for d := 2; d*d <= n; d++ {
		if n%d == 0 {
			s += d
			if d != n/d {
				s += n / d
			}
		}
	}
	return s == n
}
