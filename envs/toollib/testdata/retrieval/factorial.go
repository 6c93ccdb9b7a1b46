package tools

// factorial returns n! = 1 * 2 * ... * n, the number of orderings
// (permutations) of n distinct items; 0! is 1.
//
//	factorial(5) == 120
//	factorial(0) == 1
func factorial(n int) int {
	r := 1
	for i := 2; i <= n; i++ {
		r *= i
	}
	return r
}
