// Package multistep generates word problems that chain one, two or three
// operations: a product, then the remainder of that product by a third
// number, then a sum with a fourth.
//
//	37 boxes hold 482 nails each. Packed 64 per bag, the rest plus 25 is?
//
// Its gold answer is 482 * 37 % 64 + 25. The code tool is stateless (every
// snippet runs alone), so a policy either writes one program that composes
// the steps or calls the tool once per step and carries each printed value
// into the next snippet as text. The worked solutions of the warm start do
// the latter: one call per step, each result read from a real sandbox run.
//
// Every task records its step count: Steps reads it back from a task, and
// the family's Set reports it as the group "steps=N", so that evaluations
// break accuracy and tool calls down by step count.
//
// NewSplit makes a fixed held-out set from one seed and a training sampler
// that never returns a held-out problem (its step count and operands).
package multistep
