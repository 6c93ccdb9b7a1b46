package toolcall

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Qwen's tags around a call.
const (
	Open  = "<tool_call>"
	Close = "</tool_call>"
)

// Kind says what an Event carries.
type Kind int

const (
	// Content is text outside calls, in Event.Text.
	Content Kind = iota
	// Start begins call Event.Index (0, 1, ...), named Event.Name.
	Start
	// Args is the next fragment of call Event.Index's arguments, in
	// Event.Text; a call's fragments joined are its arguments.
	Args
)

// Event is one thing the parser could tell.
type Event struct {
	Kind  Kind
	Index int    // the call, for Start and Args
	Name  string // the function, for Start
	Text  string // content or an arguments fragment
}

// Call is one parsed call: its function and its arguments as JSON text.
type Call struct {
	Name      string
	Arguments string
}

// Parser reads one model output. The zero value is ready; a Parser is not
// safe for concurrent use.
type Parser struct {
	state     state
	buf       string // text not yet consumed
	hold      string // an incomplete UTF-8 sequence at the end of the input
	pending   string // whitespace after content, emitted when content follows
	afterCall bool   // the last thing consumed was a call block
	calls     int
	scan      scanner // the JSON of the arguments being streamed
	out       []Event
}

type state int

const (
	inText state = iota
	inHead       // after the opening tag, before the arguments
	inArgs       // streaming the arguments object
	inTail       // after the arguments, before the closing tag
)

// head is the start of a call that streams: the name, then the
// arguments, whose first character the last group holds.
var head = regexp.MustCompile(`^\s*\{\s*"name"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"arguments"\s*:\s*(\S)`)

const space = " \t\r\n"

// Feed parses the next piece of the output and returns the events it
// completes.
func (p *Parser) Feed(piece string) []Event {
	s := p.hold + piece
	cut := len(s)
	for i := 1; i <= utf8.UTFMax-1 && i <= len(s); i++ {
		if utf8.RuneStart(s[len(s)-i]) {
			if !utf8.FullRuneInString(s[len(s)-i:]) {
				cut = len(s) - i
			}
			break
		}
	}
	p.hold = s[cut:]
	p.buf += s[:cut]
	for p.step() {
	}
	return p.flush()
}

// End ends the output and returns the last events: held-back content, and
// a call block left open, which counts as a call when its JSON is one.
func (p *Parser) End() []Event {
	p.buf += p.hold
	p.hold = ""
	for p.step() {
	}
	switch p.state {
	case inText:
		p.text(p.buf)
	case inHead:
		p.block(p.buf, "")
	}
	p.buf = ""
	if !p.afterCall {
		p.emit(Event{Kind: Content, Text: p.pending})
	}
	p.pending = ""
	p.state = inText
	return p.flush()
}

// Parse parses a whole output: its content and its calls.
func Parse(text string) (content string, calls []Call) {
	var p Parser
	var b strings.Builder
	for _, e := range append(p.Feed(text), p.End()...) {
		switch e.Kind {
		case Content:
			b.WriteString(e.Text)
		case Start:
			calls = append(calls, Call{Name: e.Name})
		case Args:
			calls[e.Index].Arguments += e.Text
		}
	}
	return b.String(), calls
}

func (p *Parser) flush() []Event {
	out := p.out
	p.out = nil
	return out
}

func (p *Parser) emit(e Event) {
	if e.Kind != Start && e.Text == "" {
		return
	}
	if n := len(p.out); n > 0 && e.Kind != Start && p.out[n-1].Kind == e.Kind && p.out[n-1].Index == e.Index {
		p.out[n-1].Text += e.Text
		return
	}
	p.out = append(p.out, e)
}

// step consumes what the buffer allows in the current state and reports
// whether the state changed (so another step may consume more).
func (p *Parser) step() bool {
	switch p.state {
	case inText:
		if i := strings.Index(p.buf, Open); i >= 0 {
			p.text(p.buf[:i])
			p.buf = p.buf[i+len(Open):]
			p.state = inHead
			return true
		}
		keep := partialSuffix(p.buf, Open)
		p.text(p.buf[:len(p.buf)-keep])
		p.buf = p.buf[len(p.buf)-keep:]
	case inHead:
		return p.stepHead()
	case inArgs:
		n, done := p.scan.feed(p.buf)
		p.emit(Event{Kind: Args, Index: p.calls - 1, Text: p.buf[:n]})
		p.buf = p.buf[n:]
		if done {
			p.state = inTail
			return true
		}
	case inTail:
		if i := strings.Index(p.buf, Close); i >= 0 {
			p.buf = p.buf[i+len(Close):]
			p.endCall()
			return true
		}
	}
	return false
}

// stepHead decides how the call block in the buffer goes on: it streams
// once its head is known, or is read whole at its closing tag.
func (p *Parser) stepHead() bool {
	end := strings.Index(p.buf, Close)
	region := p.buf
	if end >= 0 {
		region = p.buf[:end]
	}
	if m := head.FindStringSubmatchIndex(region); m != nil && region[m[4]] == '{' {
		var name string
		if json.Unmarshal([]byte(region[m[2]:m[3]]), &name) == nil && name != "" {
			p.pending = ""
			p.emit(Event{Kind: Start, Index: p.calls, Name: name})
			p.calls++
			p.buf = p.buf[m[4]:]
			p.scan = scanner{}
			p.state = inArgs
			return true
		}
	}
	if end < 0 {
		return false
	}
	p.block(p.buf[:end], Close)
	p.buf = p.buf[end+len(Close):]
	p.state = inText
	return true
}

// block reads a call block whole: a call when its JSON is a call object,
// else content with its tags (closing, the closing tag or "" for a block
// the output left open).
func (p *Parser) block(body, closing string) {
	var obj struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	args := ""
	ok := json.Unmarshal([]byte(body), &obj) == nil && obj.Name != nil && *obj.Name != ""
	if ok {
		args, ok = arguments(obj.Arguments)
	}
	if !ok {
		p.text(Open + body + closing)
		return
	}
	p.pending = ""
	p.emit(Event{Kind: Start, Index: p.calls, Name: *obj.Name})
	p.emit(Event{Kind: Args, Index: p.calls, Text: args})
	p.calls++
	p.endCall()
}

// arguments reads the arguments of a call read whole: an object as
// written, a string holding an object, or none ("{}").
func arguments(raw json.RawMessage) (string, bool) {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "" || s == "null":
		return "{}", true
	case s[0] == '{':
		return s, true
	case s[0] == '"':
		var inner string
		if json.Unmarshal(raw, &inner) != nil || !json.Valid([]byte(inner)) || !strings.HasPrefix(strings.TrimSpace(inner), "{") {
			return "", false
		}
		return inner, true
	}
	return "", false
}

// endCall notes a finished call block: whitespace around it is dropped.
func (p *Parser) endCall() {
	p.state = inText
	p.afterCall = true
	p.pending = ""
}

// text consumes content: whitespace at its end is held until content
// follows (and dropped when a call follows instead).
func (p *Parser) text(s string) {
	lead := len(s) - len(strings.TrimLeft(s, space))
	p.pending += s[:lead]
	s = s[lead:]
	if s == "" {
		return
	}
	body := strings.TrimRight(s, space)
	if !p.afterCall {
		p.emit(Event{Kind: Content, Text: p.pending})
	}
	p.emit(Event{Kind: Content, Text: body})
	p.pending = s[len(body):]
	p.afterCall = false
}

// partialSuffix is the length of the longest end of s that begins tag
// without being all of it.
func partialSuffix(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}

// scanner follows a JSON value byte by byte until it closes.
type scanner struct {
	depth      int
	inStr, esc bool
	started    bool
}

// feed scans s and returns how many bytes belong to the value and whether
// the value closed there.
func (sc *scanner) feed(s string) (int, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case sc.inStr && sc.esc:
			sc.esc = false
		case sc.inStr && c == '\\':
			sc.esc = true
		case sc.inStr && c == '"':
			sc.inStr = false
		case sc.inStr:
		case c == '"':
			sc.inStr = true
		case c == '{' || c == '[':
			sc.depth++
			sc.started = true
		case c == '}' || c == ']':
			sc.depth--
		}
		if sc.started && sc.depth == 0 {
			return i + 1, true
		}
	}
	return len(s), false
}
