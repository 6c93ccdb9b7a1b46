package tools

// sumOfSquares returns 1^2 + 2^2 + ... + n^2, the sum of the squares of
// the first n positive integers.
//
//	sumOfSquares(20) == 2870
//	sumOfSquares(0) == 0
func sumOfSquares(n int) int {
	return n * (n + 1) * (2*n + 1) / 6
}
