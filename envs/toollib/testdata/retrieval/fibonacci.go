package tools

// fibonacci returns the n-th Fibonacci number, where each term is the sum
// of the two before it: F(0) = 0, F(1) = 1.
//
//	fibonacci(10) == 55
//	fibonacci(30) == 832040
func fibonacci(n int) int {
	a, b := 0, 1
	for i := 0; i < n; i++ {
		a, b = b, a+b
	}
	return a
}
