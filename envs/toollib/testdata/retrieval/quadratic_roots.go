package tools

// quadraticRoots solves the quadratic equation a x^2 + b x + c = 0 and
// returns its real roots, larger first, and whether it has any.
//
//	quadraticRoots(1, -5, 6) == 3.0, 2.0, true
//	quadraticRoots(1, 0, 1) == 0.0, 0.0, false
func quadraticRoots(a, b, c float64) (float64, float64, bool) {
	d := b*b - 4*a*c
	if d < 0 {
		return 0, 0, false
	}
	s := math.Sqrt(d)
	x1, x2 := (-b+s)/(2*a), (-b-s)/(2*a)
	if x1 < x2 {
		x1, x2 = x2, x1
	}
	return x1, x2, true
}
