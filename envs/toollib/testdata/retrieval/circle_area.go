package tools

// circleArea returns the area of a circle of radius r: pi r squared.
//
//	circleArea(1) == math.Pi
//	circleArea(0.6) == 1.131 (±0.001)
func circleArea(r float64) float64 {
	return math.Pi * r * r
}
