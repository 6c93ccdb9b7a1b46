package tools

// digitSum returns the sum of the decimal digits of n, ignoring its sign.
//
//	digitSum(98765) == 35
//	digitSum(-70) == 7
func digitSum(n int) int {
	if n < 0 {
		n = -n
	}
	s := 0
	for ; n > 0; n /= 10 {
		s += n % 10
	}
	return s
}
