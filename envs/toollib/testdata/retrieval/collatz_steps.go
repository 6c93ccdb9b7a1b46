package tools

// collatzSteps returns how many steps of the Collatz map (halve an even
// number, replace an odd one by 3n + 1) take n > 0 to 1.
//
//	collatzSteps(27) == 111
//	collatzSteps(1) == 0
func collatzSteps(n int) int {
	steps := 0
	for n != 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}
