package tools

// isPrime reports whether n is a prime number: greater than one and
// divisible only by one and itself. It uses trial division.
//
//	isPrime(7919) == true
//	isPrime(221) == false
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
