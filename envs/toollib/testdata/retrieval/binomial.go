package tools

// binomial returns the binomial coefficient n choose k: the number of
// ways to choose k items out of n when order does not matter.
//
//	binomial(10, 3) == 120
//	binomial(3, 4) == 0
func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}
