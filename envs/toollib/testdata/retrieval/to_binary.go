package tools

// toBinary returns the base-2 representation of the non-negative
// integer n as a string of 0s and 1s.
//
//	toBinary(45) == "101101"
//	toBinary(0) == "0"
func toBinary(n int) string {
	return strconv.FormatInt(int64(n), 2)
}
