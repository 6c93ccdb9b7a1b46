package tools

// hypotenuse returns the length of the longest side of a right triangle
// whose other two sides are a and b (Pythagoras' theorem).
//
//	hypotenuse(3, 4) == 5.0
//	hypotenuse(1, 1) == 1.4142135623730951
func hypotenuse(a, b float64) float64 {
	return math.Sqrt(a*a + b*b)
}
