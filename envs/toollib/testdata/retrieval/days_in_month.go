package tools

// daysInMonth returns the number of days of month (1 to 12) in year,
// counting February's 29th in leap years.
//
//	daysInMonth(2023, 2) == 28
//	daysInMonth(2024, 4) == 30
func daysInMonth(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
