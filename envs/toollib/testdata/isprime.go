package tools

// isPrime reports whether n is a prime number, by trial division.
//
//	isPrime(97) == true
//	isPrime(91) == false
//	isPrime(1) == false
func isPrime(n int) bool {
	if n < 2 {
		return false
	}
	for d := 2; d*d <= n; d++ {
		if n%d == 0 {
			return false
		}
	}
	return true
}
