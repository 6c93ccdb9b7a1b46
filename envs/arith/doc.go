// Package arith generates arithmetic word problems that a small model cannot
// work out in its head but solves with one line of code: multiplication of a
// 3-4 digit number by a 2-3 digit number, exact division with a 2-3 digit
// quotient and divisor, and the remainder of a 4-5 digit number by a 2 digit
// one.
//
// A problem is one short templated sentence (30 to 60 characters, since
// prompts are tokenized per character):
//
//	37 boxes hold 4821 nails each. How many nails?
//
// and its gold answer is the integer result. Reference recovers the solving
// code, such as fmt.Println(4821 * 37), from a task's ID, so demonstrations
// can be written from a plain envs.Task.
//
// NewSplit makes a fixed held-out set from one seed and a training sampler
// that never returns a held-out (operation, operands) pair.
package arith
