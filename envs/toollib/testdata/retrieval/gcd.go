package tools

// gcd returns the greatest common divisor of a and b, the largest
// integer that divides both; it is never negative.
//
//	gcd(84, 126) == 42
//	gcd(-4, 10) == 2
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	if a < 0 {
		return -a
	}
	return a
}
