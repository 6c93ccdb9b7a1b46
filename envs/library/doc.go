// Package library is ART's task library: worked demonstrations of tasks,
// with their tool calls and the results those calls really returned,
// kept in a JSONL file that people edit and review like code. A run
// selects the demonstrations most similar to each task (Select) and
// puts them before the task in the prompt (Prefix); the warm start can
// train on them (ToRollout); and Validate re-runs every recorded call,
// so the library never holds a result a tool did not give.
//
// # File format
//
// One JSON object a line; blank lines are skipped. Unknown fields are
// errors naming the line.
//
//	{"id": "arith-0001",                    // unique in the file
//	 "family": "arith",                     // task family (task.name) of the task
//	 "description": "multiply with Go code", // what kind of task it is, in words
//	 "input": "37 boxes hold 4821 nails each. How many nails?", // the task as the policy reads it
//	 "steps": [                             // the worked program, in order
//	   {"thought": "37 * 4821",             // optional reasoning before the call
//	    "tool": "sandbox",                  // tool kind that runs the call
//	    "call": "package main\n...",        // the tool input, verbatim
//	    "result": "178377\n"}],             // the tool's output, verbatim
//	 "answer": "178377"}                    // the final answer the demonstration gives
//
// A step without a tool is reasoning only: it has a thought and neither
// call nor result. A demonstration without steps answers directly.
//
// # Rendering
//
// In the tag format of a run (format.Format) a demonstration reads as
// the policy would have written it: the input and a newline, then per
// step the thought in think tags, the call in code tags and the result as
// the engine writes it (format.ResultBlock), then the answer in answer
// tags. In ART's own syntax (SyntaxART) it reads
//
//	Q: <input>
//	<thought>
//	[<tool>] <call>
//	#1: <result>
//	Ans: <answer>
//
// Before a task (Prefix) the selected demonstrations stand in reverse
// order of selection, the most similar next to the task, each followed
// by a blank line.
//
// # Selection
//
// Select scores every demonstration against a task by BM25 over its
// description and input (k1 1.2, b 0.75, words lowercased, split at every
// character that is not a letter or a digit). Demonstrations of the
// task's family with a positive score come first, then those of other
// families with a positive score (ART's cross-task transfer), then the
// rest of the task's family and then the rest; ties keep file order. A
// demonstration whose input is the task's own prompt is never selected,
// so a demonstration cannot give a task its answer.
//
// An index of NewEmbedIndex ranks instead by the cosine similarity
// between an Embedder's vector of the task text and that of each
// demonstration's description and input (a run uses the mean of its own
// policy's final hidden states), with the same order: positive cosines
// of the task's family first, then of other families, then the rest of
// the family and the rest; ties keep file order. The demonstrations'
// vectors are computed once per index, and again after Index.Reembed.
package library
