package mathgrade

import (
	"testing"

	"github.com/artist-rl/artist/rollout/format"
)

// TestExtractForms checks the answer forms of Extract beyond one box:
// several boxes that make one list, lead-ins, and explicit statements
// that come after a box. A case with a gold is also graded against it.
func TestExtractForms(t *testing.T) {
	f := format.DefaultFormat()
	cases := []struct {
		name, response, want string
		ok                   bool
		gold                 string // when set, Equal(want, gold) must hold
	}{
		{"boxes joined by and in text", `The points are \boxed{(2, -1)} \text{ and } \boxed{(0, 3)}.`, "(2, -1), (0, 3)", true, "(0,3),(2,-1)"},
		{"boxes joined by commas", `$\boxed{3},\boxed{5},\boxed{7}$`, "3, 5, 7", true, `\{3,5,7\}`},
		{"boxes joined by a bare and", `so $\boxed{-4}$ and $\boxed{9}$`, "-4, 9", true, "9, -4"},
		{"boxes joined by or", `\boxed{k=2} or \boxed{k=8}`, "k=2, k=8", true, "k=8, k=2"},
		{"boxes joined by a semicolon", `\boxed{1};\quad\boxed{1/2}`, "1, 1/2", true, "1/2, 1"},
		{"boxes in separate math", `$\boxed{10}$, $\boxed{20}$`, "10, 20", true, "20,10"},
		{"words between boxes", `\boxed{3} is wrong, so \boxed{4}`, "4", true, "4"},
		{"no separator between boxes", `\boxed{6} \boxed{6}`, "6", true, "6"},
		{"boxes on two lines", "\\boxed{6},\n\\boxed{8}", "8", true, "8"},
		{"word ending in or", `\boxed{2} factor \boxed{5}`, "5", true, "5"},
		{"a text that is not a separator", `\boxed{2} \text{hence} \boxed{5}`, "5", true, ""},
		{"separator after a non-box group", `{2} and \boxed{5}`, "5", true, ""},
		{"lead-in with display math", "We are done.\nAnswer \\[ 15 \\]", "15", true, "15"},
		{"lead-in with a colon and math", "Answer: $\\frac{3}{8}$", `\frac{3}{8}`, true, "0.375"},
		{"lead-in in bold", "**Answer:** 27", "27", true, "27"},
		{"final answer lead-in with a sentence", "Final Answer: The largest $n$ is 31.", "31", true, "31"},
		{"final answer lead-in heading", "## Final Answer\n\n$\\boxed{2}$", "2", true, "2"},
		{"answer word in prose", "Let me answer $5$ questions first. So we get 9.", "", false, ""},
		{"answer mid-line is no lead-in", "My answer: 5", "", false, ""},
		{"answers is no lead-in", "Answers: $3$", "", false, ""},
		{"later final answer beats a box", `We get \boxed{3}. Checking again, x is larger. The final answer is $4,096$`, "4,096", true, "4096"},
		{"later lead-in beats a box", "First $\\boxed{12}$, but that double counts.\nFinal Answer: 6", "6", true, "6"},
		{"box in the final statement", `The final answer is $\boxed{8}$`, "8", true, "8"},
		{"plain answer is after a box loses", `\boxed{7}, which is the answer is clear`, "7", true, "7"},
		{"earlier final answer loses to a box", `The final answer is 2, or rather \boxed{5}`, "5", true, "5"},
		{"answer right after a box is no lead-in", `\boxed{3}Answer: 5`, "3", true, "3"},
		{"lead-in on the line after a box", "\\boxed{3}\nAnswer: 5", "5", true, "5"},
		{"joined boxes in an answer block", `<answer>\boxed{1} and \boxed{2}</answer>`, "1, 2", true, "2,1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Extract(c.response, f)
			if got != c.want || ok != c.ok {
				t.Fatalf("Extract(%q) = %q, %v; want %q, %v", c.response, got, ok, c.want, c.ok)
			}
			if c.gold != "" && !Equal(got, c.gold) {
				t.Errorf("Equal(%q, %q) = false, want true", got, c.gold)
			}
		})
	}
}

// TestExtractBoxesNotJoined checks that boxes with other words between
// them never grade as the list of their contents.
func TestExtractBoxesNotJoined(t *testing.T) {
	f := format.DefaultFormat()
	for _, r := range []string{
		`\boxed{1} no no no \boxed{2}`,
		`\boxed{1} then \boxed{2}`,
		`\boxed{1} \text{ not } \boxed{2}`,
	} {
		if a, _ := Extract(r, f); Equal(a, `\{1,2\}`) {
			t.Errorf("Extract(%q) = %q, graded equal to the set {1, 2}", r, a)
		}
	}
}
