package atlass

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/artist-rl/artist/openai"
)

// ErrGaveUp marks a phase that got no acceptable reply within its bound:
// the model's failure on this task, not a failure of the server or the
// database. Run records it in the transcript and goes on to the next task.
var ErrGaveUp = errors.New("atlass: phase gave up")

// Attempt is one request of a phase and what came of it.
type Attempt struct {
	Messages []openai.ChatMessage `json:"messages"`        // the conversation sent
	Reply    string               `json:"reply"`           // the model's answer
	Error    string               `json:"error,omitempty"` // why it was refused, as fed back; "" when accepted
}

// PhaseLog is the transcript of one phase: every attempt, then the
// accepted output or why the phase failed.
type PhaseLog struct {
	Phase    string    `json:"phase"` // analyze, plan, select, generate or solve
	Attempts []Attempt `json:"attempts,omitempty"`
	Output   any       `json:"output,omitempty"`
	Note     string    `json:"note,omitempty"` // what else happened (a skipped phase, an auto-approval)
	Error    string    `json:"error,omitempty"`
}

// ask runs the conversation msgs until accept takes a reply, at most
// tries times. A refused reply is answered with feedback(err) and asked
// again; the log holds every attempt. It returns ErrGaveUp (wrapped with
// the last refusal) when no reply was accepted, and, without ErrGaveUp,
// the Chat's own error when a request failed or the error of a fatal
// that accept returned.
func ask(ctx context.Context, chat Chat, log *PhaseLog, msgs []openai.ChatMessage, tries int,
	accept func(reply string) error, feedback func(err error) string) error {
	var last error
	for range max(tries, 1) {
		reply, err := chat.Reply(ctx, msgs)
		if err != nil {
			log.Error = err.Error()
			return err
		}
		a := Attempt{Messages: slices.Clone(msgs), Reply: reply}
		last = accept(reply)
		if f, ok := errors.AsType[fatal](last); ok {
			log.Attempts = append(log.Attempts, a)
			log.Error = f.err.Error()
			return f.err
		}
		if last == nil {
			log.Attempts = append(log.Attempts, a)
			return nil
		}
		a.Error = last.Error()
		log.Attempts = append(log.Attempts, a)
		msgs = append(msgs, message("assistant", reply), message("user", feedback(last)))
	}
	err := fmt.Errorf("%w: %s: no acceptable reply in %d attempts; the last was refused: %v", ErrGaveUp, log.Phase, len(log.Attempts), last)
	log.Error = err.Error()
	return err
}

// fatal is an error of accept that is not the reply's fault (the
// database failed): ask returns it at once instead of asking again.
type fatal struct{ err error }

func (f fatal) Error() string { return f.err.Error() }

// jsonFeedback is what a refused JSON reply is answered with.
func jsonFeedback(err error) string {
	return "Your reply was refused: " + err.Error() + "\nReply again with only the corrected JSON object."
}

// decodeReply reads the JSON object of a reply into v: the reply may wrap
// it in a Markdown code fence or surround it with prose, but must hold
// exactly one object, with every key in required present and no key v
// does not know.
func decodeReply(reply string, v any, required ...string) error {
	obj, err := jsonObject(reply)
	if err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(obj, &keys); err != nil {
		return fmt.Errorf("the reply is not a JSON object: %v", err)
	}
	for _, k := range required {
		if _, ok := keys[k]; !ok {
			return fmt.Errorf("the object has no %q key", k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the object does not have the required shape: %v", err)
	}
	return nil
}

// jsonObject returns the text from the first "{" to the last "}" of
// reply.
func jsonObject(reply string) ([]byte, error) {
	start, end := strings.IndexByte(reply, '{'), strings.LastIndexByte(reply, '}')
	if start < 0 || end < start {
		return nil, fmt.Errorf("the reply holds no JSON object (no {...}): %.120q", reply)
	}
	obj := []byte(reply[start : end+1])
	if !json.Valid(obj) {
		var v any
		err := json.Unmarshal(obj, &v)
		return nil, fmt.Errorf("the reply is not valid JSON: %v", err)
	}
	return obj, nil
}
