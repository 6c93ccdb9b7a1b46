package tools

// stddev returns the population standard deviation of xs: the square
// root of the mean squared deviation from their mean, a measure of spread.
//
//	stddev([]float64{2, 4, 4, 4, 5, 5, 7, 9}) == 2.0
//	stddev([]float64{1, 1}) == 0.0
func stddev(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)))
}
