package bfcl

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// listed returns the names of the functions documented in a task text
// under header, or nil when the text has no such section.
func listed(t *testing.T, text, header string, sig bool) []string {
	t.Helper()
	if !strings.HasPrefix(text, header+"\n") {
		return nil
	}
	section, _, ok := strings.Cut(strings.TrimPrefix(text, header+"\n"), "\n\n")
	if !ok {
		t.Fatalf("no blank line after the documentation:\n%s", text)
	}
	var names []string
	for _, line := range strings.Split(section, "\n") {
		if sig {
			name, _, _ := strings.Cut(line, "(")
			names = append(names, name)
			continue
		}
		v, err := DecodeJSON([]byte(line))
		if err != nil {
			t.Fatalf("documentation line is not JSON: %v\n%s", err, line)
		}
		names = append(names, v.(*Dict).Str("name"))
	}
	sort.Strings(names)
	return names
}

// documented returns the sorted names of the classes' functions minus drop.
func documented(t *testing.T, d *Data, cache map[string][]FunctionDoc, classes, drop []string) []string {
	t.Helper()
	var out []string
	for _, c := range classes {
		if _, ok := cache[c]; !ok {
			fs, err := FunctionDocs(d, c)
			if err != nil {
				t.Fatal(err)
			}
			cache[c] = fs
		}
		for _, f := range cache[c] {
			if !slices.Contains(drop, f.Name) {
				out = append(out, f.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

func messageText(e *Entry, turn int) string {
	var s []string
	for _, m := range e.Messages(turn) {
		s = append(s, m.Content)
	}
	return strings.Join(s, "\n")
}

func TestTasks(t *testing.T) {
	eachSource(t, func(t *testing.T, _ source, ds *dataSet) {
		for _, tc := range []struct {
			cat  string
			docs string
		}{
			{"base", ""}, {"base", DocsSignatures}, {"miss_func", DocsJSON}, {"miss_func", DocsSignatures},
		} {
			name := tc.docs
			if name == "" {
				name = "default"
			}
			t.Run(tc.cat+"/"+name, func(t *testing.T) {
				es := ds.of(t, tc.cat)
				tasks, err := Tasks(ds.d, es, TaskOptions{Docs: tc.docs})
				if err != nil {
					t.Fatal(err)
				}
				if len(tasks) != len(es) {
					t.Fatalf("%d tasks for %d entries", len(tasks), len(es))
				}
				sig := tc.docs == DocsSignatures
				offers := 0
				cache := map[string][]FunctionDoc{}
				for i, task := range tasks {
					e := &es[i]
					if task.ID != e.ID || task.Answer != "" || len(task.Turns) != len(e.GroundTruth)-1 {
						t.Fatalf("%s: id %q, answer %q, %d turns for %d ground-truth turns", e.ID, task.ID, task.Answer, len(task.Turns), len(e.GroundTruth))
					}
					if got, want := listed(t, task.Prompt, "Functions:", sig), documented(t, ds.d, cache, e.InvolvedClasses, e.Withheld(0)); !slices.Equal(got, want) {
						t.Fatalf("%s: prompt lists %v, want %v", e.ID, got, want)
					}
					if !strings.HasSuffix(task.Prompt, "\n\n"+messageText(e, 0)) {
						t.Fatalf("%s: prompt does not end with the first user message:\n%s", e.ID, task.Prompt)
					}
					for k, text := range task.Turns {
						offers += checkTurn(t, e, k+1, text, sig)
					}
				}
				if tc.cat == "miss_func" && offers != len(es) {
					t.Errorf("%d turns offer functions, want one per entry (%d)", offers, len(es))
				}
			})
		}
	})
}

// checkTurn checks the text of turn k and returns 1 when it offers
// functions.
func checkTurn(t *testing.T, e *Entry, k int, text string, sig bool) int {
	t.Helper()
	want := slices.Sorted(slices.Values(e.MissedFunction[k]))
	got := listed(t, text, "New functions:", sig)
	if !slices.Equal(got, want) {
		t.Fatalf("%s turn %d offers %v, want %v", e.ID, k, got, want)
	}
	msg := messageText(e, k)
	if k < len(e.Question) && len(e.Question[k]) == 0 && len(want) > 0 && msg != AddedFunctionsMessage {
		t.Fatalf("%s turn %d: message %q, want the added-functions message", e.ID, k, msg)
	}
	if len(want) == 0 {
		if text != msg {
			t.Fatalf("%s turn %d: text %q, want %q", e.ID, k, text, msg)
		}
		return 0
	}
	if !strings.HasSuffix(text, "\n\n"+msg) {
		t.Fatalf("%s turn %d: text does not end with its message:\n%s", e.ID, k, text)
	}
	return 1
}

func TestTasksMissFuncZero(t *testing.T) {
	e := entryByID(t, "miss_func", "multi_turn_miss_func_0") // sort withheld until turn 3, which has no question
	tasks, err := Tasks(testData(t), []Entry{e}, TaskOptions{Docs: DocsSignatures})
	if err != nil {
		t.Fatal(err)
	}
	task := tasks[0]
	const sortSig = "sort(file_name: str) - Sort the lines of a file."
	for _, tc := range []struct {
		name    string
		text    string
		hasSort bool
	}{
		{"prompt", task.Prompt, false},
		{"turn 1", task.Turns[0], false},
		{"turn 3", task.Turns[2], true},
		{"turn 4", task.Turns[3], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Contains(tc.text, "\nsort("); got != tc.hasSort {
				t.Fatalf("lists sort: %v, want %v:\n%s", got, tc.hasSort, tc.text)
			}
		})
	}
	if want := "New functions:\n" + sortSig + "\n\n" + AddedFunctionsMessage; task.Turns[2] != want {
		t.Errorf("turn 3 is %q, want %q", task.Turns[2], want)
	}
	if !strings.HasPrefix(task.Prompt, "Functions:\nauthenticate_twitter(username: str, password: str) - ") {
		t.Errorf("prompt does not start with the first TwitterAPI function:\n%s", task.Prompt)
	}
}

func TestSignatures(t *testing.T) {
	type sig struct{ name, want string }
	for _, tc := range []struct {
		src  source
		min  int // functions documented, at least
		sigs []sig
	}{
		{sources[0], 60, []sig{ // the fixture's own documentation
			{"cd", "cd(folder: str) - Change the current working directory to the given folder."},
			{"ls", "ls(a: bool = False) - List the current directory."},
			{"find", "find(path: str = '.', name: str = None) - Find files and directories whose name contains a string."},
			{"mean", "mean(numbers: list[float]) - Compute the mean of a list of numbers."},
			{"tail", "tail(file_name: str, lines: int = 10) - Show the last lines of a file."},
			{"post_tweet", "post_tweet(content: str, tags: list[str] = [], mentions: list[str] = []) - Post a tweet as the logged-in user."},
			{"create_ticket", "create_ticket(title: str, description: str = '', priority: int = 1) - Open a ticket for the logged-in user."},
			{"list_all_airports", "list_all_airports() - List every airport code."},
		}},
		{sources[1], 100, []sig{ // the benchmark's
			{"cd", "cd(folder: str) - Change the current working directory to the specified folder."},
			{"ls", "ls(a: bool = False) - List the contents of the current directory."},
			{"find", "find(path: str = '.', name: str = None) - Find any file or directories under specific path that contain name in its file name."},
			{"mean", "mean(numbers: list[float]) - Calculate the mean of a list of numbers."},
			{"tail", "tail(file_name: str, lines: int = 10) - Display the last part of a file of any extension."},
			{"post_tweet", "post_tweet(content: str, tags: list[str] = [], mentions: list[str] = []) - Post a tweet for the authenticated user."},
			{"list_all_airports", "list_all_airports() - List all available airports"},
		}},
	} {
		t.Run(tc.src.name, func(t *testing.T) {
			d := loadSet(t, tc.src.file(t, "")).d
			sigs := map[string]string{}
			for _, c := range Classes() {
				fs, err := FunctionDocs(d, c)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range fs {
					if _, dup := sigs[f.Name]; dup {
						t.Errorf("function %s documented twice", f.Name)
					}
					if f.Class != c || !strings.HasPrefix(f.JSON, "{") {
						t.Errorf("%s: class %q, JSON %q", f.Name, f.Class, f.JSON)
					}
					sigs[f.Name] = f.Signature
				}
			}
			if len(sigs) < tc.min {
				t.Errorf("%d functions documented, want at least %d", len(sigs), tc.min)
			}
			for _, s := range tc.sigs {
				t.Run(s.name, func(t *testing.T) {
					if got := sigs[s.name]; got != s.want {
						t.Errorf("got  %q\nwant %q", got, s.want)
					}
				})
			}
		})
	}
}

func TestTaskErrors(t *testing.T) {
	e := entryByID(t, "base", "multi_turn_base_0")
	noDocs := t.TempDir()
	if err := os.Mkdir(filepath.Join(noDocs, "multi_turn_func_doc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		d     *Data
		e     Entry
		o     TaskOptions
		wants []string
	}{
		{"bad docs option", testData(t), e, TaskOptions{Docs: "yaml"}, []string{`"yaml"`, `"json"`, `"signatures"`}},
		{"missing documentation file", &Data{Dir: noDocs}, e, TaskOptions{}, []string{"posting_api.json"}},
		{"unknown class", testData(t), Entry{ID: "x", InvolvedClasses: []string{"Nope"}, GroundTruth: [][]string{nil}}, TaskOptions{}, []string{`"Nope"`}},
		{"undocumented withheld function", testData(t), Entry{ID: "x", InvolvedClasses: []string{"MathAPI"},
			MissedFunction: map[int][]string{1: {"frobnicate"}}, GroundTruth: [][]string{nil, nil}}, TaskOptions{}, []string{"frobnicate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Tasks(tc.d, []Entry{tc.e}, tc.o)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) || !strings.HasPrefix(err.Error(), "bfcl: ") {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
		})
	}
	for _, ok := range []string{"", DocsJSON, DocsSignatures} {
		if err := (TaskOptions{Docs: ok}).Validate(); err != nil {
			t.Errorf("docs %q: %v", ok, err)
		}
	}
}
