package taubench

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/artist-rl/artist/internal/pyval"
)

// Respond is the name of the action that speaks to the user instead of
// calling a tool.
const Respond = "respond"

// TerminateTool is the one tool of both domains whose call ends the
// episode.
const TerminateTool = "transfer_to_human_agents"

// ErrNoOutput reports a tool that returned nothing (send_certificate for a
// user who holds all three certificate ids): the reference fails the whole
// episode, which then scores 0.
var ErrNoOutput = errors.New("taubench: the tool returned no output, which fails the episode (send_certificate to a user who already holds certificate_3221322, _3221323 and _3221324)")

// Action is one agent action: a tool call, or Respond with kwargs
// {"content": text}. Kwargs keep the key order the agent wrote, which
// decides which unexpected argument an error names.
type Action struct {
	Name   string
	Kwargs *pyval.Dict
}

// toolError is an exception a tool raises; the observation is "Error: "
// followed by the message.
type toolError string

func (e toolError) Error() string { return string(e) }

func errorf(format string, a ...any) error { return toolError(fmt.Sprintf(format, a...)) }

// keyError is Python's KeyError text: the key in repr form.
func keyError(k any) error { return toolError(pyval.Repr(k)) }

// tool is one callable of a domain. params lists its keyword arguments in
// signature order; every one is required.
type tool struct {
	params []string
	run    func(e *Env, args *pyval.Dict) (string, error)
}

// Call runs a tool by name and returns its observation string, exactly as
// the reference's step() returns it: a tool's exception becomes "Error: "
// and its message, and a name that is no tool of the domain gives
// "Unknown action <name>". The only error is ErrNoOutput. Respond is not a
// tool: Episode handles it.
func (e *Env) Call(name string, kwargs *pyval.Dict) (string, error) {
	t, ok := e.domain.tools[name]
	if !ok {
		return "Unknown action " + name, nil
	}
	if kwargs == nil {
		kwargs = pyval.NewDict()
	}
	if err := checkArgs(name, t.params, kwargs); err != nil {
		return "Error: " + err.Error(), nil
	}
	out, err := t.run(e, pyval.DeepCopy(kwargs).(*pyval.Dict))
	if errors.Is(err, ErrNoOutput) {
		return "", err
	}
	if err != nil {
		return "Error: " + err.Error(), nil
	}
	return out, nil
}

// checkArgs reproduces Python's binding of keyword arguments to a
// signature: an unexpected keyword is reported first, then every missing
// parameter.
func checkArgs(name string, params []string, kwargs *pyval.Dict) error {
	fn := className(name) + ".invoke()"
	for _, k := range kwargs.Keys() {
		s, _ := k.(string)
		if !contains(params, s) {
			return errorf("%s got an unexpected keyword argument '%s'", fn, s)
		}
	}
	var missing []string
	for _, p := range params {
		if !kwargs.Has(p) {
			missing = append(missing, "'"+p+"'")
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return errorf("%s missing 1 required positional argument: %s", fn, missing[0])
	case 2:
		return errorf("%s missing 2 required positional arguments: %s and %s", fn, missing[0], missing[1])
	}
	last := len(missing) - 1
	return errorf("%s missing %d required positional arguments: %s, and %s", fn, len(missing), strings.Join(missing[:last], ", "), missing[last])
}

// className is the reference's tool class name: the snake_case tool name
// in CamelCase.
func className(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ToolNames returns the tool names of the domain, sorted.
func (d *Domain) ToolNames() []string {
	names := make([]string, 0, len(d.tools))
	for n := range d.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// common returns the tools both domains share.
func common() map[string]tool {
	return map[string]tool{
		"calculate": {params: []string{"expression"}, run: func(_ *Env, a *pyval.Dict) (string, error) {
			return Calculate(pyval.Str(arg(a, "expression")))
		}},
		"think": {params: []string{"thought"}, run: func(*Env, *pyval.Dict) (string, error) {
			return "", nil
		}},
		TerminateTool: {params: []string{"summary"}, run: func(*Env, *pyval.Dict) (string, error) {
			return "Transfer successful", nil
		}},
	}
}

func arg(a *pyval.Dict, k string) any { v, _ := a.Get(k); return v }
