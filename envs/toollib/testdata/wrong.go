package tools

// triple returns three times x; its example is wrong on purpose.
//
//	triple(2) == 7
func triple(x int) int { return 3 * x }
