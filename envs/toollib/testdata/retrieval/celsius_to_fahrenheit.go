package tools

// celsiusToFahrenheit converts a temperature in degrees Celsius to
// degrees Fahrenheit: F = C * 9 / 5 + 32.
//
//	celsiusToFahrenheit(100) == 212.0
//	celsiusToFahrenheit(37) == 98.6 (±1e-9)
func celsiusToFahrenheit(c float64) float64 {
	return c*9/5 + 32
}
