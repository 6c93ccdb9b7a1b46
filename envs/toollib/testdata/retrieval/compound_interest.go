package tools

// compoundInterest returns the balance after years of interest at rate
// (0.05 for 5%) compounded once a year on an initial principal.
//
//	compoundInterest(1000, 0.1, 2) == 1210.0000000000002
//	compoundInterest(5000, 0.04, 10) == 7401.22 (±0.01)
func compoundInterest(principal, rate float64, years int) float64 {
	return principal * math.Pow(1+rate, float64(years))
}
