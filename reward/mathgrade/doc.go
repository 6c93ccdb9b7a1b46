// Package mathgrade grades final answers to math problems: it finds the
// answer a response states and decides whether it equals a gold answer
// under math equivalence.
//
//	Extract(response, format)  the final answer written in a response
//	Grade(pred, gold)          a Verdict: equal or not, and why (a Reason constant)
//	Equal(pred, gold)          Grade(pred, gold).Equal
//
// Extract takes, in order of preference, the last complete answer block of
// the rollout format (within it, a boxed answer or a stated answer when
// there is one), the last boxed answer (boxes listed one after another,
// \boxed{2}, \boxed{4}, are one list), or the last stated answer: the text
// after "answer is" or after a lead-in such as "Answer:" or "Final
// Answer:". An explicit statement ("Final Answer:", "final answer is")
// after the last box beats it. Text inside the format's output blocks is
// ignored: the tool wrote it, not the policy. Its time is linear in the
// response's length.
//
// Grade and Equal normalise both answers (LaTeX wrappers, spacing, units,
// thousands separators) and compare them as exact numbers, percentages,
// tuples, intervals, sets, matrices, equations, inequalities or
// expressions evaluated at fixed points; Equal's doc comment lists the
// rules. The contract:
//
//   - a false accept is worse than a false reject: an answer longer than
//     MaxAnswerLen bytes, an empty one, and a comparison that runs out of
//     its fixed work budget are all unequal, each with its own Reason;
//   - the arguments have a direction, Grade(pred, gold): a prediction that
//     names the quantity asked for is accepted (pred m+n = 104, gold 104),
//     but a gold answer that is such an equation is not matched by its
//     bare value (pred 2, gold 3x - y = 2 is ReasonUnnamed). Every other
//     rule is symmetric: swapping the arguments gives the same verdict;
//   - the verdict is deterministic (the points expressions are evaluated
//     at are fixed), safe for concurrent use, and bounded in time; no
//     input makes any function panic;
//   - the Reason constants are stable strings: artist grade writes them,
//     and an equal verdict has ReasonSame or ReasonEquivalent, every other
//     reason a rejection.
//
// Of this module it imports only rollout, for the tag names of a Format.
// The reward components and the judge of tasks with final answers
// (package reward) are built on it; it never imports them. Its internal errors say
// "mathgrade:" and never leave the package: the exported functions answer
// a verdict, not an error.
package mathgrade
