package tools

// powMod returns base raised to the power exp, modulo m (modular
// exponentiation by repeated squaring), for exp >= 0 and m > 0.
//
//	powMod(3, 200, 13) == 9
//	powMod(2, 10, 1000) == 24
func powMod(base, exp, m int) int {
	r, b := 1%m, base%m
	for ; exp > 0; exp >>= 1 {
		if exp&1 == 1 {
			r = r * b % m
		}
		b = b * b % m
	}
	return r
}
