package tools

// gcd returns the greatest common divisor of two integers a and b, which
// must not both be zero. The result is never negative.
//
//	gcd(12, 18) == 6
//	gcd(-4, 10) == 2
//	gcd(7, 0) == 7
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	if a < 0 {
		return -a
	}
	return a
}
