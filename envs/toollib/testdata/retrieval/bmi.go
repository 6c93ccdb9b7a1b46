package tools

// bmi returns the body mass index of a person of weight kg and height
// metres: weight divided by height squared.
//
//	bmi(70, 1.75) == 22.857 (±0.001)
//	bmi(81, 1.8) == 25.0 (±1e-9)
func bmi(weight, height float64) float64 {
	return weight / (height * height)
}
