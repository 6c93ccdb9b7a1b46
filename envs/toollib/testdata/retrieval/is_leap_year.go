package tools

// isLeapYear reports whether year is a leap year of the Gregorian
// calendar (366 days): divisible by 4, except centuries not divisible by 400.
//
//	isLeapYear(2024) == true
//	isLeapYear(1900) == false
func isLeapYear(year int) bool {
	return year%4 == 0 && (year%100 != 0 || year%400 == 0)
}
