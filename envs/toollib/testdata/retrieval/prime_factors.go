package tools

// primeFactors returns the prime factorization of n > 1 as a sorted list
// of primes whose product is n, each repeated by its multiplicity.
//
//	primeFactors(360) == []int{2, 2, 2, 3, 3, 5}
//	primeFactors(13) == []int{13}
func primeFactors(n int) []int {
	var out []int
	for d := 2; d*d <= n; d++ {
		for n%d == 0 {
			out = append(out, d)
			n /= d
		}
	}
	if n > 1 {
		out = append(out, n)
	}
	return out
}
