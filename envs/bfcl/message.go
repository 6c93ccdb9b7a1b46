package bfcl

import (
	"github.com/artist-rl/artist/internal/pyval"

	"fmt"
	"strings"
)

// messenger is MessageAPI.
type messenger struct {
	at  *Dict
	rng *pyRandom
}

func newMessage(d *Data, cfg *Dict, long bool) (api, error) {
	m := &messenger{at: loadAttrs(d, "MessageAPI", cfg), rng: newPyRandom(200191)}
	return m, nil
}

func (m *messenger) state() *Dict {
	out := DeepCopy(m.at).(*Dict)
	ids, _ := out.Get("generated_ids")
	l, _ := ids.([]any)
	out.Set("generated_ids", sortedInts(l))
	return out
}

func (m *messenger) get(k string) any { v, _ := m.at.Get(k); return v }

func (m *messenger) inbox() []any { l, _ := m.get("inbox").([]any); return l }

func (m *messenger) loggedIn() bool {
	u := m.get("current_user")
	s, isStr := u.(string)
	return u != nil && (!isStr || s != "")
}

var errNoLogin = errDict("No user is currently logged in.")

func (m *messenger) methods() map[string]method {
	return map[string]method{
		"list_users": {nil, func(args) (any, error) {
			return NewDict("user_list", append([]any(nil), asDict(m.get("user_map")).Keys()...)), nil
		}},
		"get_user_id":              {[]param{req("user", kAny)}, m.userID},
		"message_login":            {[]param{req("user_id", kAny)}, m.login},
		"message_get_login_status": {nil, func(args) (any, error) { return NewDict("login_status", m.loggedIn()), nil }},
		"send_message":             {[]param{req("receiver_id", kAny), req("message", kAny)}, m.send},
		"delete_message":           {[]param{req("receiver_id", kAny)}, m.delete},
		"view_messages_sent":       {nil, m.viewSent},
		"add_contact":              {[]param{req("user_name", kAny)}, m.addContact},
		"search_messages":          {[]param{req("keyword", kStr)}, m.search},
		"get_message_stats":        {nil, m.stats},
	}
}

// entry returns an inbox message's single receiver and text.
func entry(v any) (any, any) {
	d := asDict(v)
	if d == nil || d.Len() == 0 {
		return nil, nil
	}
	k := d.Keys()[0]
	t, _ := d.Get(k)
	return k, t
}

func (m *messenger) userIDs() []any {
	um := asDict(m.get("user_map"))
	var out []any
	for _, k := range um.Keys() {
		v, _ := um.Get(k)
		out = append(out, v)
	}
	return out
}

func (m *messenger) userID(a args) (any, error) {
	id, ok := asDict(m.get("user_map")).Get(a["user"])
	if !ok {
		return errDict(fmt.Sprintf("User '%s' not found in the workspace.", PyStr(a["user"]))), nil
	}
	return NewDict("user_id", id), nil
}

func (m *messenger) login(a args) (any, error) {
	id := a["user_id"]
	if !contains(m.userIDs(), id) {
		return NewDict("login_status", false, "message", fmt.Sprintf("User ID '%s' not found.", PyStr(id))), nil
	}
	m.at.Set("current_user", id)
	return NewDict("login_status", true, "message", fmt.Sprintf("User '%s' logged in successfully.", PyStr(id))), nil
}

func (m *messenger) send(a args) (any, error) {
	if !m.loggedIn() {
		return errNoLogin, nil
	}
	r := a["receiver_id"]
	if !contains(m.userIDs(), r) {
		return errDict(fmt.Sprintf("Receiver ID '%s' not found.", PyStr(r))), nil
	}
	if !pyval.Hashable(r) {
		return nil, raisef("unhashable type: '%s'", pyval.TypeName(r))
	}
	ids, _ := m.get("generated_ids").([]any)
	id := m.rng.randint(10000, 99999)
	for contains(ids, id) {
		id = m.rng.randint(10000, 99999)
	}
	m.at.Set("generated_ids", append(ids, id))
	m.at.Set("inbox", append(m.inbox(), NewDict(r, a["message"])))
	m.at.Set("message_count", numAdd(m.get("message_count"), int64(1)))
	return NewDict("sent_status", true, "message_id", NewDict("new_id", id),
		"message", fmt.Sprintf("Message sent to '%s' successfully.", PyStr(r))), nil
}

func (m *messenger) delete(a args) (any, error) {
	if !m.loggedIn() {
		return errNoLogin, nil
	}
	r := a["receiver_id"]
	in := m.inbox()
	for i := len(in) - 1; i >= 0; i-- {
		if k, _ := entry(in[i]); Equal(k, r) {
			target := in[i]
			for j, e := range in {
				if Equal(e, target) {
					m.at.Set("inbox", append(in[:j:j], in[j+1:]...))
					break
				}
			}
			return NewDict("deleted_status", true, "message_id", k,
				"message", fmt.Sprintf("Receiver %s's first message deleted successfully.", PyStr(r))), nil
		}
	}
	return errDict(fmt.Sprintf("Receiver ID %s not found.", PyStr(r))), nil
}

func (m *messenger) viewSent(args) (any, error) {
	if !m.loggedIn() {
		return errNoLogin, nil
	}
	out := NewDict()
	for _, e := range m.inbox() {
		k, t := entry(e)
		if k == nil {
			continue
		}
		l, _ := out.Get(k)
		ll, _ := l.([]any)
		out.Set(k, append(ll, t))
	}
	return NewDict("messages", out), nil
}

func (m *messenger) addContact(a args) (any, error) {
	name := a["user_name"]
	um := asDict(m.get("user_map"))
	if um.Has(name) {
		return errDict(fmt.Sprintf("User name '%s' already exists.", PyStr(name))), nil
	}
	n := numAdd(m.get("user_count"), int64(1))
	m.at.Set("user_count", n)
	id := fmt.Sprintf("USR%03d", toInt(n))
	if contains(m.userIDs(), id) {
		return errDict(fmt.Sprintf("User ID '%s' already exists.", id)), nil
	}
	um.Set(name, id)
	return NewDict("added_status", true, "user_id", id, "message", fmt.Sprintf("Contact '%s' added successfully.", PyStr(name))), nil
}

func (m *messenger) search(a args) (any, error) {
	if !m.loggedIn() {
		return errNoLogin, nil
	}
	kw := strings.ToLower(a.str("keyword"))
	out := []any{}
	for _, e := range m.inbox() {
		k, t := entry(e)
		if s, ok := t.(string); ok && strings.Contains(strings.ToLower(s), kw) {
			out = append(out, NewDict("receiver_id", k, "message", t))
		}
	}
	return NewDict("results", out), nil
}

func (m *messenger) stats(args) (any, error) {
	if !m.loggedIn() {
		return errNoLogin, nil
	}
	seen := NewDict()
	for _, e := range m.inbox() {
		if k, _ := entry(e); k != nil {
			seen.Set(k, true)
		}
	}
	return NewDict("stats", NewDict("received_count", int64(len(m.inbox())), "total_contacts", int64(seen.Len()))), nil
}
