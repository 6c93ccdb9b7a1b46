package atlass

import (
	"strings"
	"text/template"
)

// The roles that open the system prompts of the phases, so a transcript
// (or a scripted test server) tells the phases apart.
var roles = []struct{ phase, role string }{
	{"analyze", "You are the task analyzer"},
	{"plan", "You are the tool master"},
	{"select", "You are the tool selector"},
	{"generate", "You are the tool generator"},
	{"solve", "You are the task solver"},
}

// PhaseOf names the phase (analyze, plan, select, generate or solve)
// whose system prompt system is, or returns "" for another text.
func PhaseOf(system string) string {
	for _, r := range roles {
		if strings.HasPrefix(system, r.role) {
			return r.phase
		}
	}
	return ""
}

// The system prompts of the phases.
const (
	analyzerSystem = `You are the task analyzer of a problem solver that uses tools.
Split the user's task into the shortest ordered list of subtasks that together solve it. Each subtask is one short imperative sentence. Do not solve the task.

Reply with only a JSON object and no other text:
{"subtasks": ["first subtask", "second subtask"]}`

	masterSystem = `You are the tool master of a problem solver that uses tools.
The solver writes Go snippets and runs them; a tool is a reusable Go function that its snippets can call. Decide whether the task needs such functions beyond a few lines of plain Go with fmt, math, strconv and strings. If it does, list each function the solver should call: a Go identifier in camelCase as its name, and one sentence that says what it computes from which inputs.

Reply with only a JSON object and no other text:
{"needs_tools": true, "tools": [{"name": "gcd", "description": "gcd returns the greatest common divisor of two ints."}]}
or, when no tool is needed:
{"needs_tools": false, "tools": []}`

	selectorSystem = `You are the tool selector of a problem solver that uses tools.
For each needed tool, decide whether one of the candidates from the tool database already does the same job. Match by meaning, not by name: a candidate with another name that computes the same thing is a match; a candidate with a similar name that computes something else is not. Choose only among the candidates listed under that needed tool, by id, or give null when none fits. Say why in one short sentence.

Reply with only a JSON object and no other text, with one entry per needed tool:
{"matches": [{"needed": "NAME", "existing": 12, "why": "..."}, {"needed": "OTHER", "existing": null, "why": "..."}]}`

	generatorSystem = `You are the tool generator of a problem solver that uses tools.
Write one Go function that does what is asked, following these rules:
- Exactly one top-level func declaration, not a method: no package clause, no imports, no other declarations. fmt, math, strconv and strings are imported for you; no other package is available.
- No file, network, process, clock or environment access, and no goroutines.
- A doc comment that starts with the function's name and says what it does, then a line with only //, then at least two example lines, each "//" and a tab followed by EXPR == WANT, where EXPR calls the function with literal arguments and WANT is the value it returns, written as a Go literal (6, -2, true, 2.5, "olleh", []int{1, 2}).
- The examples run as the function's tests, so work out each WANT carefully.

Reply with only the Go source in one ` + "```go" + ` block, like this:
` + "```go" + `
// gcd returns the greatest common divisor of a and b.
//
//	gcd(12, 18) == 6
//	gcd(7, 5) == 1
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
` + "```"
)

// The user messages of the phases.
var (
	analyzerUser = parse("analyzer", "Task:\n{{.Task}}")
	masterUser   = parse("master", `Task:
{{.Task}}

Subtasks:
{{range $i, $s := .Subtasks}}{{inc $i}}. {{$s}}
{{end}}`)
	selectorUser = parse("selector", `Task:
{{.Task}}

Needed tools and the candidates the database holds for each:
{{range .Needs}}
needed {{.Name}}: {{.Description}}
{{range .Candidates}}  candidate id {{.ID}} ({{.State}}): {{.Tool.Signature}} // {{oneLine .Tool.Doc}}
{{else}}  no candidates
{{end}}{{end}}`)
	generatorUser = parse("generator", `Write the Go function {{.Name}}: {{.Description}}

It is for this task: {{.Task}}`)
	solverSystem = parse("solver", `You are the task solver.
Solve the user's task. You can run Go snippets with the run_go function: a snippet is statements and function declarations, with fmt, math, strconv and strings imported, and it prints its results with fmt.Println.
{{if .Listing}}
These functions are already defined in every snippet; call them and do not define them again:
{{.Listing}}{{end}}
When you know the answer, write it as {{.Open}}ANSWER{{.Close}}.`)
)

// enginePrompt is the solver's prompt on the rollout engine, in tags.
var enginePrompt = parse("engine", `Solve the task. Run Go snippets by writing them between {{.Code}} and {{.EndCode}}: fmt, math, strconv and strings are imported, and each snippet prints its results with fmt.Println, which come back after {{.Output}}.
{{if .Listing}}These functions are already defined in every snippet; call them and do not define them again:
{{.Listing}}{{end}}Write the final answer between {{.Answer}} and {{.EndAnswer}}.

Task: {{.Task}}
`)

// Feedback of the generator: a source that is not one documented
// function, a function whose examples fail in the sandbox, and one whose
// name is taken.
const (
	generatorParseFeedback  = "The source was refused: %v\nReply again with the whole corrected function in one ```go block."
	generatorVerifyFeedback = "The function was run on its examples in the sandbox and failed: %v\nFix the function, or an example whose WANT is wrong, and reply with the whole corrected source in one ```go block."
	generatorTakenFeedback  = "The function was refused: %v\nGive your function another name and reply with the whole source in one ```go block."
)

func parse(name, text string) *template.Template {
	funcs := template.FuncMap{
		"inc":     func(i int) int { return i + 1 },
		"oneLine": func(s string) string { return strings.Join(strings.Fields(s), " ") },
	}
	return template.Must(template.New(name).Funcs(funcs).Parse(text))
}

// render executes t on data; the templates are fixed and their data
// typed, so a failure is a programming error.
func render(t *template.Template, data any) string {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		panic("atlass: render " + t.Name() + ": " + err.Error())
	}
	return b.String()
}
