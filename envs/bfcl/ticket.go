package bfcl

import (
	"fmt"
	"github.com/artist-rl/artist/internal/pyval"
	"sort"
	"strings"
)

// ticketAPI is TicketAPI.
type ticketAPI struct{ at *Dict }

func newTicket(d *Data, cfg *Dict, long bool) (api, error) {
	return &ticketAPI{at: loadAttrs(d, "TicketAPI", cfg)}, nil
}

func (t *ticketAPI) state() *Dict { return t.at }

func (t *ticketAPI) get(k string) any { v, _ := t.at.Get(k); return v }

func (t *ticketAPI) queue() []any { l, _ := t.get("ticket_queue").([]any); return l }

func (t *ticketAPI) user() bool {
	u := t.get("current_user")
	s, isStr := u.(string)
	return u != nil && (!isStr || s != "")
}

func (t *ticketAPI) methods() map[string]method {
	id := req("ticket_id", kAny)
	return map[string]method{
		"create_ticket":    {[]param{req("title", kAny), opt("description", kAny, ""), opt("priority", kAny, int64(1))}, t.create},
		"get_ticket":       {[]param{id}, t.getTicket},
		"close_ticket":     {[]param{id}, t.close},
		"resolve_ticket":   {[]param{id, req("resolution", kAny)}, t.resolve},
		"edit_ticket":      {[]param{id, req("updates", kDict)}, t.edit},
		"get_user_tickets": {[]param{opt("status", kStr, nil)}, t.userTickets},
		"logout": {nil, func(args) (any, error) {
			if !t.user() {
				return errDict("No user is currently logged in."), nil
			}
			t.at.Set("current_user", nil)
			return NewDict("success", true), nil
		}},
		"ticket_login":            {[]param{req("username", kAny), req("password", kAny)}, t.login},
		"ticket_get_login_status": {nil, func(args) (any, error) { return NewDict("username", t.user()), nil }},
	}
}

func (t *ticketAPI) login(a args) (any, error) {
	if pyval.Truthy(a["username"]) && pyval.Truthy(a["password"]) {
		t.at.Set("current_user", a["username"])
		return NewDict("success", true), nil
	}
	return NewDict("success", false), nil
}

// invalidPriority is the reference's answer to a priority out of range,
// or the TypeError comparing it raised.
func invalidPriority(err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return errDict("Invalid priority. Priority must be between 1 and 5."), nil
}

func (t *ticketAPI) create(a args) (any, error) {
	if !t.user() {
		return errDict("User not authenticated. Please log in to create a ticket."), nil
	}
	p := a["priority"]
	if low, err := compare("<", p, int64(1)); err != nil || low {
		return invalidPriority(err)
	}
	if high, err := compare(">", p, int64(5)); err != nil || high {
		return invalidPriority(err)
	}
	id := t.get("ticket_counter")
	tk := NewDict("id", id, "title", a["title"], "description", a["description"], "status", "Open",
		"priority", p, "created_by", t.get("current_user"))
	t.at.Set("ticket_queue", append(t.queue(), tk))
	t.at.Set("ticket_counter", numAdd(id, int64(1)))
	return tk, nil
}

func (t *ticketAPI) find(id any) *Dict {
	for _, v := range t.queue() {
		d := asDict(v)
		if x, _ := d.Get("id"); Equal(x, id) {
			return d
		}
	}
	return nil
}

func ticketNotFound(id any) *Dict {
	return errDict(fmt.Sprintf("Ticket with ID %s not found.", PyStr(id)))
}

func (t *ticketAPI) getTicket(a args) (any, error) {
	tk := t.find(a["ticket_id"])
	if tk == nil {
		return ticketNotFound(a["ticket_id"]), nil
	}
	return tk, nil
}

func (t *ticketAPI) close(a args) (any, error) {
	id := a["ticket_id"]
	tk := t.find(id)
	if tk == nil {
		return ticketNotFound(id), nil
	}
	if tk.Str("status") == "Closed" {
		return errDict(fmt.Sprintf("Ticket with ID %s is already closed.", PyStr(id))), nil
	}
	tk.Set("status", "Closed")
	return NewDict("status", fmt.Sprintf("Ticket %s has been closed successfully.", PyStr(id))), nil
}

func (t *ticketAPI) resolve(a args) (any, error) {
	id := a["ticket_id"]
	tk := t.find(id)
	if tk == nil {
		return ticketNotFound(id), nil
	}
	if tk.Str("status") == "Resolved" {
		return errDict(fmt.Sprintf("Ticket with ID %s is already resolved.", PyStr(id))), nil
	}
	tk.Set("status", "Resolved")
	tk.Set("resolution", a["resolution"])
	return NewDict("status", fmt.Sprintf("Ticket %s has been resolved successfully.", PyStr(id))), nil
}

func (t *ticketAPI) edit(a args) (any, error) {
	id := a["ticket_id"]
	tk := t.find(id)
	if tk == nil {
		return ticketNotFound(id), nil
	}
	up := a.dict("updates")
	valid := map[any]bool{"title": true, "description": true, "status": true, "priority": true}
	var bad []string
	for _, k := range up.Keys() {
		if !valid[k] {
			bad = append(bad, PyStr(k))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad) // the reference prints a set, whose order varies
		return errDict("Invalid fields for update: " + strings.Join(bad, ", ")), nil
	}
	for _, k := range up.Keys() {
		if v, _ := up.Get(k); v != nil {
			tk.Set(k, v)
		}
	}
	return NewDict("status", fmt.Sprintf("Ticket %s has been updated successfully.", PyStr(id))), nil
}

func (t *ticketAPI) userTickets(a args) (any, error) {
	if !t.user() {
		return []any{errDict("User not authenticated. Please log in to view tickets.")}, nil
	}
	out := []any{}
	for _, v := range t.queue() {
		d := asDict(v)
		by, _ := d.Get("created_by")
		if !Equal(by, t.get("current_user")) {
			continue
		}
		if !a.isNone("status") && strings.ToLower(d.Str("status")) != strings.ToLower(a.str("status")) {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}
