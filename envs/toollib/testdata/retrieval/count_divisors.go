package tools

// countDivisors returns how many positive integers divide n > 0 evenly,
// 1 and n included.
//
//	countDivisors(360) == 24
//	countDivisors(7) == 2
func countDivisors(n int) int {
	c := 0
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			c++
			if d != n/d {
				c++
			}
		}
	}
	return c
}
