package tools

// lcm returns the least common multiple of a and b: the smallest
// positive integer that both divide. It is 0 when either is 0.
//
//	lcm(12, 18) == 36
//	lcm(0, 5) == 0
func lcm(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	if r := a / x * b; r > 0 {
		return r
	} else {
		return -r
	}
}
