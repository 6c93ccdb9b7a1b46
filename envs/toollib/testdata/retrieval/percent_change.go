package tools

// percentChange returns the relative change from old to new in percent:
// positive for an increase, negative for a decrease.
//
//	percentChange(80, 100) == 25.0
//	percentChange(50, 40) == -20.0
func percentChange(old, new float64) float64 {
	return (new - old) / old * 100
}
