// Package arith generates arithmetic word problems that a small model
// cannot work out in its head but solves with code, as two task families
// of one kind told apart by their step count.
//
// The arith family (Family, section Config) asks one operation a problem:
// multiplication of a 3-4 digit number by a 2-3 digit number, exact
// division with a 2-3 digit quotient and divisor, and the remainder of a
// 4-5 digit number by a 2 digit one. A problem is one short templated
// sentence (30 to 60 characters, since prompts are tokenized per
// character):
//
//	37 boxes hold 4821 nails each. How many nails?
//
// The multistep family (MultiStep, section ChainConfig) chains one, two or
// three steps (Chain): a product, then the remainder of that product by a
// third number, then a sum with a fourth.
//
//	37 boxes hold 482 nails each. Packed 64 per bag, the rest plus 25 is?
//
// Its gold answer is 482 * 37 % 64 + 25. The code tool is stateless (every
// snippet runs alone), so a policy either writes one program that composes
// the steps or calls the tool once per step and carries each printed value
// into the next snippet as text. Every chain records its step count: Steps
// reads it back from a task, and Set.TaskGroup reports it as the group
// "steps=N", so that evaluations break accuracy and tool calls down by
// step count.
//
// Both families share the rest: the gold answer is the integer result; a
// task's ID holds its problem, so the worked solutions of the warm start
// (Demonstrations, ChainDemonstrations) are written from a plain
// envs.Task, one tool call a step, each result read from a real run of
// the code: Go in the sandbox, or Python in a jailed python3 when the
// run's tool.kind is python (family.DemoRequest.ToolKind); and NewSplit and NewChainSplit make a fixed held-out set from one
// seed and a training sampler (Generator) that never returns a held-out
// problem (its operation or step count and its operands).
package arith
