package reward

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/rollout"
)

func FuzzEqual(f *testing.F) {
	for _, s := range [][2]string{
		{"42", "42.0"}, {`\frac{1}{2}`, "0.5"}, {"1,234", "1234"}, {`$\boxed{\text{x}}$`, "x"},
		{`\text{\text{`, "}"}, {"1/0", "0/1"}, {"-.5", `-\frac12`}, {"$$", "$"}, {"\xff", "\xff."},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab := Equal(a, b)
		if ba := Equal(b, a); ab != ba {
			t.Errorf("Equal(%q, %q) = %v but Equal(%q, %q) = %v", a, b, ab, b, a, ba)
		}
		want := len(a) <= MaxAnswerLen && normalize(a) != ""
		if got := Equal(a, a); got != want {
			t.Errorf("Equal(%q, itself) = %v, want %v", a, got, want)
		}
		for i, n := range normalizers {
			if out := n(a); out != a && len(out) >= len(a) {
				t.Errorf("normalizer %d grew or kept the length of %q: %q", i, a, out)
			}
		}
		if n := normalize(a); normalize(n) != n {
			t.Errorf("normalize is not idempotent on %q: %q then %q", a, n, normalize(n))
		}
	})
}

func FuzzExtract(f *testing.F) {
	for _, s := range [][2]string{
		{"<think>x</think><answer>", "42"}, {`\boxed{\boxed{`, "}"}, {"<output><answer>1</answer>", "</output>"},
		{"</answer><answer>", "<answer>"}, {"", ""},
	} {
		f.Add(s[0], s[1])
	}
	fm := rollout.DefaultFormat()
	f.Fuzz(func(t *testing.T, prefix, ans string) {
		got, ok := Extract(prefix, fm)
		if ok && got != strings.TrimSpace(got) {
			t.Errorf("Extract(%q) = %q is not trimmed", prefix, got)
		}
		if strings.Contains(ans, "<") || strings.Contains(prefix, "<output>") {
			return
		}
		r := prefix + "<answer>" + ans + "</answer>"
		got, ok = Extract(r, fm)
		if !ok || got != strings.TrimSpace(ans) {
			t.Errorf("Extract(%q) = %q, %v; want %q, true", r, got, ok, strings.TrimSpace(ans))
		}
	})
}

func FuzzFormatStrict(f *testing.F) {
	f.Add("plan", "fmt.Println(1)", "1\n", "again", "1", "")
	f.Add("", "", "", "", "", " ")
	f.Add("<think>", "</code>", "<answer>", "x", "</answer>", "a")
	fm := rollout.DefaultFormat()
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
