package tools

// binomial returns the binomial coefficient n choose k: the number of ways
// to pick k items out of n. It is 0 when k is out of range.
//
//	binomial(5, 2) == 10
//	binomial(10, 0) == 1
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
