package tools

// distance2D returns the Euclidean distance between the points (x1, y1)
// and (x2, y2) of the plane.
//
//	distance2D(1, 2, 4, 6) == 5.0
//	distance2D(0, 0, 0, 0) == 0.0
func distance2D(x1, y1, x2, y2 float64) float64 {
	return math.Hypot(x2-x1, y2-y1)
}
