package tools

// mean returns the arithmetic mean (average) of xs: their sum divided by
// their count. It is NaN for no values.
//
//	mean([]float64{3, 7, 8, 10}) == 7.0
//	mean([]float64{1, 2}) == 1.5
func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
