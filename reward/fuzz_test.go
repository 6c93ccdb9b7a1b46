package reward

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

func FuzzFormatStrict(f *testing.F) {
	f.Add("plan", "fmt.Println(1)", "1\n", "again", "1", "")
	f.Add("", "", "", "", "", " ")
	f.Add("<think>", "</code>", "<answer>", "x", "</answer>", "a")
	fm := format.DefaultFormat()
	strict, relaxed := FormatStrict(fm), FormatRelaxed(fm)
	f.Fuzz(func(t *testing.T, th, code, out, late, ans, junk string) {
		r := "<think>" + th + "</think><code>" + code + "</code><output>" + out + "</output>" +
			"<think>" + late + "</think><answer>" + ans + "</answer>"
		s, _ := strict(&rollout.Trajectory{Response: r}, task("1"))
		rel, _ := relaxed(&rollout.Trajectory{Response: r}, task("1"))
		if s != 0 && s != strictScore {
			t.Fatalf("strict = %v, want 0 or %v", s, strictScore)
		}
		if s == strictScore && rel != 4*relaxedPerTag {
			t.Errorf("strict accepted %q but relaxed = %v", r, rel)
		}
		clean := !strings.ContainsRune(th+code+late+ans, '<') && !strings.Contains(out, "</output>")
		if clean && s != strictScore {
			t.Errorf("strict rejected well-formed %q", r)
		}
		if strings.TrimSpace(junk) != "" && !strings.HasPrefix(strings.TrimSpace(junk), "<") {
			if s2, _ := strict(&rollout.Trajectory{Response: junk + r}, task("1")); s2 != 0 {
				t.Errorf("strict accepted text %q before the blocks", junk)
			}
			if s2, _ := strict(&rollout.Trajectory{Response: r + junk}, task("1")); s2 != 0 {
				t.Errorf("strict accepted text %q after the blocks", junk)
			}
		}
	})
}
