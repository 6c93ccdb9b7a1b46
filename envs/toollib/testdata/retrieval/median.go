package tools

// median returns the middle value of xs once sorted, or the mean of the
// two middle values when their count is even. xs is not changed.
//
//	median([]float64{5, 1, 9, 3, 7}) == 5.0
//	median([]float64{4, 1, 3, 2}) == 2.5
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
