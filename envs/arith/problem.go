package arith

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/envs"
)

// Op is an arithmetic operation; its value is the name used in configs and
// task IDs.
type Op string

const (
	Mul Op = "mul" // A * B
	Div Op = "div" // A / B, exact
	Mod Op = "mod" // A % B
)

// allOps lists every operation in a fixed order.
var allOps = []Op{Mul, Div, Mod}

// symbol is the Go operator of op.
func (op Op) symbol() string {
	switch op {
	case Mul:
		return "*"
	case Div:
		return "/"
	case Mod:
		return "%"
	}
	panic(fmt.Sprintf("arith: unknown op %q", string(op)))
}

// templates holds each operation's sentences as format strings over
// (A, B, noun). Every noun fits every template, and every problem's prompt
// is 30 to 60 bytes long.
var templates = map[Op][NumTemplates]string{
	Mul: {
		"%[2]d boxes hold %[1]d %[3]s each. How many %[3]s?",
		"Each of %[2]d bags has %[1]d %[3]s. Total %[3]s?",
		"%[1]d %[3]s per row, %[2]d rows. How many %[3]s?",
		"A crate holds %[1]d %[3]s. How many in %[2]d crates?",
	},
	Div: {
		"%[1]d %[3]s shared by %[2]d kids. How many each?",
		"%[2]d kids share %[1]d %[3]s equally. How many each?",
		"%[1]d %[3]s fill %[2]d equal bags. How many per bag?",
		"Split %[1]d %[3]s into %[2]d equal rows. Row size?",
	},
	Mod: {
		"%[1]d %[3]s go in boxes of %[2]d. How many left over?",
		"%[1]d %[3]s packed %[2]d per bag. How many remain?",
		"%[2]d kids share %[1]d %[3]s equally. How many are left?",
		"%[1]d %[3]s in rows of %[2]d. How many spare?",
	},
}

// nouns are the counted things; Problem.Noun indexes this list.
var nouns = [NumNouns]string{"nails", "coins", "beads", "eggs", "seeds", "stamps", "apples", "cards"}

// NumTemplates is the number of sentence templates of each operation.
const NumTemplates = 4

// NumNouns is the number of nouns a problem can count.
const NumNouns = 8

// Problem is one word problem. For Div, A is the dividend and a multiple of
// B. Template is in [0, NumTemplates) and Noun in [0, NumNouns).
type Problem struct {
	Op       Op
	A, B     int
	Template int
	Noun     int
}

// Prompt returns the problem's sentence. It panics if Op, Template or Noun
// is out of range.
func (p Problem) Prompt() string {
	return fmt.Sprintf(templates[p.Op][p.Template], p.A, p.B, nouns[p.Noun])
}

// Answer returns the exact integer result.
func (p Problem) Answer() int {
	switch p.Op {
	case Mul:
		return p.A * p.B
	case Div:
		return p.A / p.B
	case Mod:
		return p.A % p.B
	}
	panic(fmt.Sprintf("arith: unknown op %q", string(p.Op)))
}

// Code returns the Go snippet that prints the answer, in one canonical
// spacing: fmt.Println(4821 * 37).
func (p Problem) Code() string { return goCode.print(p.expression(goCode)) }

// expression is the arithmetic the problem's code prints, written in l,
// "4821 * 37": what a worked solution writes down as its plan.
func (p Problem) expression(l lang) string { return l.binary(p.A, p.Op.symbol(), p.B) }

// ID returns the task ID, arith-<op>-<A>-<B>-t<template>-n<noun>, for
// example arith-mul-4821-37-t2-n0.
func (p Problem) ID() string {
	return fmt.Sprintf("arith-%s-%d-%d-t%d-n%d", p.Op, p.A, p.B, p.Template, p.Noun)
}

// Task returns the problem as a task with its decimal answer.
func (p Problem) Task() envs.Task { return task(p.ID(), p.Prompt(), p.Answer()) }

// task is a generated problem as a task: its gold answer is the decimal
// integer answer.
func task(id, prompt string, answer int) envs.Task {
	return envs.Task{ID: id, Prompt: prompt, Answer: strconv.Itoa(answer)}
}

// solution is the problem's worked solution in l: its expression as the
// plan, then the one call that prints the answer.
func (p Problem) solution(l lang) solution {
	plan := p.expression(l)
	return solution{plan: plan, calls: []call{{code: l.print(plan), want: p.Answer()}}}
}

// Reference returns the code that solves t, or ok false when t's ID is not
// one this package writes.
func Reference(t envs.Task) (code string, ok bool) {
	p, ok := parseID(t.ID)
	if !ok {
		return "", false
	}
	return p.Code(), true
}

// parseID inverts Problem.ID, accepting only operands in the ranges Random
// draws from and indices in range.
func parseID(id string) (Problem, bool) {
	f := strings.Split(id, "-")
	if len(f) != 6 || f[0] != "arith" || !strings.HasPrefix(f[4], "t") || !strings.HasPrefix(f[5], "n") {
		return Problem{}, false
	}
	var n [4]int
	for i, s := range []string{f[2], f[3], f[4][1:], f[5][1:]} {
		v, err := strconv.Atoi(s)
		if err != nil || strconv.Itoa(v) != s {
			return Problem{}, false
		}
		n[i] = v
	}
	p := Problem{Op: Op(f[1]), A: n[0], B: n[1], Template: n[2], Noun: n[3]}
	if !p.valid() {
		return Problem{}, false
	}
	return p, true
}

// valid reports whether p is a problem Random can return.
func (p Problem) valid() bool {
	if p.Template < 0 || p.Template >= NumTemplates || p.Noun < 0 || p.Noun >= NumNouns {
		return false
	}
	switch p.Op {
	case Mul:
		return inDigits(p.A, 3, 4) && inDigits(p.B, 2, 3)
	case Div:
		return inDigits(p.B, 2, 3) && p.A%p.B == 0 && inDigits(p.A/p.B, 2, 3)
	case Mod:
		return inDigits(p.A, 4, 5) && inDigits(p.B, 2, 2)
	}
	return false
}

// Random draws a problem of op: the number of digits of each operand
// uniformly from its range, then the operand uniformly among numbers of
// that many digits; template and noun uniformly. It panics on an unknown op.
func Random(rng *rand.Rand, op Op) Problem {
	p := Problem{Op: op}
	switch op {
	case Mul:
		p.A, p.B = randDigits(rng, 3, 4), randDigits(rng, 2, 3)
	case Div:
		p.B = randDigits(rng, 2, 3)
		p.A = randDigits(rng, 2, 3) * p.B
	case Mod:
		p.A, p.B = randDigits(rng, 4, 5), randDigits(rng, 2, 2)
	default:
		panic(fmt.Sprintf("arith: unknown op %q", string(op)))
	}
	p.Template = rng.Intn(NumTemplates)
	p.Noun = rng.Intn(NumNouns)
	return p
}

// randDigits returns a number with between lo and hi decimal digits.
func randDigits(rng *rand.Rand, lo, hi int) int {
	d := lo + rng.Intn(hi-lo+1)
	least := pow10(d - 1)
	return least + rng.Intn(9*least)
}

// inDigits reports whether n has between lo and hi decimal digits (lo
// of 1 admits 1 to 9, not 0).
func inDigits(n, lo, hi int) bool {
	return n >= pow10(lo-1) && n < pow10(hi)
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}
