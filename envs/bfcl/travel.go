package bfcl

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// travel is TravelAPI.
type travel struct {
	at   *Dict
	rng  *pyRandom
	d    *Data
	long bool
	now  func() time.Time
}

func newTravel(d *Data, cfg *Dict, long bool) (api, error) {
	t := &travel{at: loadAttrs(d, "TravelAPI", cfg), rng: newPyRandom(141053), d: d, long: long, now: time.Now}
	t.at.Set("long_context", long)
	if long {
		for _, p := range []struct{ attr, ext string }{{"credit_card_list", "CREDIT_CARD_EXTENSION"}, {"booking_record", "BOOKING_RECORD_EXTENSION"}} {
			dst := t.dict(p.attr)
			ext := d.extension(p.ext).(*Dict)
			for _, k := range ext.Keys() {
				if !dst.Has(k) {
					v, _ := ext.Get(k)
					dst.Set(k, DeepCopy(v))
				}
			}
		}
	}
	return t, nil
}

func (t *travel) state() *Dict { return t.at }

func (t *travel) get(k string) any { v, _ := t.at.Get(k); return v }

func (t *travel) dict(k string) *Dict {
	d := asDict(t.get(k))
	if d == nil {
		d = NewDict()
		t.at.Set(k, d)
	}
	return d
}

func (t *travel) methods() map[string]method {
	tok := req("access_token", kStr)
	return map[string]method{
		"authenticate_travel": {[]param{req("client_id", kStr), req("client_secret", kStr), req("refresh_token", kStr),
			req("grant_type", kStr), req("user_first_name", kStr), req("user_last_name", kStr)}, t.authenticate},
		"travel_get_login_status": {nil, func(args) (any, error) {
			e := t.get("token_expires_in")
			return NewDict("status", !(e == nil || Equal(e, int64(0)))), nil
		}},
		"get_budget_fiscal_year": {[]param{opt("lastModifiedAfter", kAny, nil), opt("includeRemoved", kAny, nil)},
			func(args) (any, error) { return NewDict("budget_fiscal_year", "2018"), nil }},
		"register_credit_card": {[]param{tok, req("card_number", kAny), req("expiration_date", kAny), req("cardholder_name", kAny),
			req("card_verification_number", kAny)}, t.registerCard},
		"get_flight_cost":         {[]param{req("travel_from", kStr), req("travel_to", kStr), req("travel_date", kStr), req("travel_class", kStr)}, t.flightCost},
		"get_credit_card_balance": {[]param{tok, req("card_id", kAny)}, t.cardBalance},
		"book_flight": {[]param{tok, req("card_id", kAny), req("travel_date", kStr), req("travel_from", kStr), req("travel_to", kStr),
			req("travel_class", kStr)}, t.bookFlight},
		"retrieve_invoice":      {[]param{tok, opt("booking_id", kAny, nil), opt("insurance_id", kAny, nil)}, t.invoice},
		"list_all_airports":     {nil, func(args) (any, error) { return DeepCopy(t.d.table("travel_airports")), nil }},
		"cancel_booking":        {[]param{tok, req("booking_id", kAny)}, t.cancel},
		"compute_exchange_rate": {[]param{req("base_currency", kStr), req("target_currency", kStr), req("value", kNum)}, t.exchange},
		"verify_traveler_information": {[]param{req("first_name", kStr), req("last_name", kStr), req("date_of_birth", kStr),
			req("passport_number", kStr)}, t.verify},
		"set_budget_limit":            {[]param{tok, req("budget_limit", kNum)}, t.setBudget},
		"get_nearest_airport_by_city": {[]param{req("location", kStr)}, t.nearestAirport},
		"purchase_insurance": {[]param{tok, req("insurance_type", kAny), req("booking_id", kAny), req("insurance_cost", kNum),
			req("card_id", kAny)}, t.insurance},
		"contact_customer_support": {[]param{req("booking_id", kAny), req("message", kAny)}, t.support},
		"get_all_credit_cards": {nil, func(args) (any, error) {
			return NewDict("credit_card_list", DeepCopy(t.get("credit_card_list"))), nil
		}},
	}
}

// checkToken validates an access token; a wrong token uses up one of the
// tolerated failures. It returns the error text, or "".
func (t *travel) checkToken(tok any) (string, error) {
	exp := t.get("token_expires_in")
	if Equal(exp, int64(0)) {
		return "Token expired", nil
	}
	if !Equal(tok, t.get("access_token")) {
		if exp == nil {
			return "", raisef("unsupported operand type(s) for -=: 'NoneType' and 'int'")
		}
		t.at.Set("token_expires_in", numSub(exp, int64(1)))
		return "Invalid access token", nil
	}
	return "", nil
}

// tokenError runs checkToken and shapes its error with an optional flag.
func (t *travel) tokenError(a args, flag string) (*Dict, error) {
	msg, err := t.checkToken(a["access_token"])
	if err != nil || msg == "" {
		return nil, err
	}
	return t.fail(flag, msg), nil
}

func (t *travel) fail(flag, msg string) *Dict {
	if flag == "" {
		return errDict(msg)
	}
	return NewDict(flag, false, "error", msg)
}

func (t *travel) authenticate(a args) (any, error) {
	tok := strconv.FormatInt(t.rng.randint(100000, 999999), 10)
	t.at.Set("token_expires_in", int64(2))
	t.at.Set("access_token", tok)
	t.at.Set("token_type", "Bearer")
	t.at.Set("token_scope", a["grant_type"])
	t.at.Set("user_first_name", a["user_first_name"])
	t.at.Set("user_last_name", a["user_last_name"])
	return NewDict("expires_in", int64(2), "access_token", tok, "token_type", "Bearer", "scope", a["grant_type"]), nil
}

func (t *travel) registerCard(a args) (any, error) {
	if t.get("token_expires_in") == nil {
		return errDict("Token not initialized"), nil
	}
	if e, err := t.tokenError(a, ""); e != nil || err != nil {
		return e, err
	}
	if k, ok := a["card_number"].(string); ok && t.dict("credit_card_list").Has(k) {
		return errDict("Card already registered"), nil
	}
	id := strconv.FormatInt(t.rng.randint(100000000000, 999999999999), 10)
	t.dict("credit_card_list").Set(id, NewDict("card_number", a["card_number"], "expiration_date", a["expiration_date"],
		"cardholder_name", a["cardholder_name"], "card_verification_number", a["card_verification_number"],
		"balance", t.rng.randint(10000, 99999)))
	return NewDict("card_id", id), nil
}

// baseCost returns the route's base cost.
func (t *travel) baseCost(from, to string) (any, bool) {
	for _, row := range t.d.table("travel_flight_base_costs").([]any) {
		r := row.([]any)
		if r[0] == from && r[1] == to {
			return r[2], true
		}
	}
	return nil, false
}

var classFactor = map[string]int64{"economy": 1, "business": 2, "first": 5}

func dateFactor(date string) int64 {
	sum := 0
	for _, r := range date {
		if r >= '0' && r <= '9' {
			sum += int(r - '0')
		}
	}
	if sum%2 == 0 {
		return 2
	}
	return 1
}

func (t *travel) flightCost(a args) (any, error) {
	base, ok := t.baseCost(a.str("travel_from"), a.str("travel_to"))
	if !ok {
		return nil, raisef("No available route for the given airports.")
	}
	cf, ok := classFactor[a.str("travel_class")]
	if !ok {
		return nil, raisef("Invalid travel class. Options are: economy, business, first.")
	}
	df := dateFactor(a.str("travel_date"))
	if !t.long {
		return NewDict("travel_cost_list", []any{toFloat(numMul(numMul(base, cf), df))}), nil
	}
	costs := []any{}
	for _, row := range t.d.table("travel_flight_base_costs").([]any) {
		costs = append(costs, toFloat(numMul(numMul(row.([]any)[2], cf), df)))
	}
	return NewDict("travel_cost_list", costs), nil
}

func (t *travel) cardBalance(a args) (any, error) {
	if e, err := t.tokenError(a, ""); e != nil || err != nil {
		return e, err
	}
	cards := t.dict("credit_card_list")
	c, ok := cards.Get(a["card_id"])
	if !ok {
		return errDict("Card not registered. Here are a list of card_id's: " + PyRepr(append([]any(nil), cards.Keys()...))), nil
	}
	b, _ := c.(*Dict).Get("balance")
	return NewDict("card_balance", b), nil
}

// pyDate matches what strptime("%Y-%m-%d") accepts.
var pyDate = regexp.MustCompile(`^(\d{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])$`)

func parseDate(s string) (time.Time, bool) {
	m := pyDate.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	d, _ := strconv.Atoi(strings.TrimSpace(m[3]))
	tm := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
	if tm.Day() != d || y == 0 {
		return time.Time{}, false
	}
	return tm, true
}

func (t *travel) bookFlight(a args) (any, error) {
	const flag = "booking_status"
	if e, err := t.tokenError(a, flag); e != nil || err != nil {
		return e, err
	}
	cv, ok := t.dict("credit_card_list").Get(a["card_id"])
	if !ok {
		return t.fail(flag, "Card not registered"), nil
	}
	card := asDict(cv)
	balance, ok := card.Get("balance")
	if !ok {
		return t.fail(flag, "Balance not found"), nil
	}
	from, to, date, class := a.str("travel_from"), a.str("travel_to"), a.str("travel_date"), a.str("travel_class")
	airports := t.d.table("travel_airports").([]any)
	if !contains(airports, from) {
		return t.fail(flag, "Invalid departure airport code: "+from), nil
	}
	if !contains(airports, to) {
		return t.fail(flag, "Invalid destination airport code: "+to), nil
	}
	if _, ok := parseDate(date); !ok {
		return t.fail(flag, "Invalid date format. Use YYYY-MM-DD."), nil
	}
	cf, ok := classFactor[class]
	if !ok {
		return t.fail(flag, "Invalid travel class. Must be one of {'economy', 'business', 'first'}"), nil
	}
	base, ok := t.baseCost(from, to)
	if !ok {
		return t.fail(flag, "No available route for the given parameters"), nil
	}
	cost := toFloat(numMul(numMul(base, cf), dateFactor(date)))
	if numLess(balance, cost) {
		return t.fail(flag, "Insufficient funds"), nil
	}
	if lim := t.get("budget_limit"); lim != nil && numLess(balance, lim) {
		return t.fail(flag, "Balance is less than budget limit"), nil
	}
	card.Set("balance", numSub(balance, cost))
	bid := strconv.FormatInt(t.rng.randint(1000000, 9999999), 10)
	tid := strconv.FormatInt(t.rng.randint(10000000, 99999999), 10)
	t.dict("booking_record").Set(bid, NewDict("card_id", a["card_id"], "travel_date", date, "travel_from", from,
		"travel_to", to, "travel_class", class, "travel_cost", cost, "transaction_id", tid))
	var hist any = NewDict()
	if t.long {
		hist = DeepCopy(t.get("booking_record"))
	}
	return NewDict("booking_id", bid, "transaction_id", tid, "booking_status", true, "booking_history", hist), nil
}

func contains(l []any, v any) bool {
	for _, x := range l {
		if Equal(x, v) {
			return true
		}
	}
	return false
}

func (t *travel) booking(id any) *Dict {
	b, _ := t.dict("booking_record").Get(id)
	return asDict(b)
}

func (t *travel) invoice(a args) (any, error) {
	if e, err := t.tokenError(a, ""); e != nil || err != nil {
		return e, err
	}
	b := t.booking(a["booking_id"])
	if b == nil {
		return errDict("Booking not found"), nil
	}
	inv := NewDict("booking_id", a["booking_id"])
	for _, k := range []string{"travel_date", "travel_from", "travel_to", "travel_class", "travel_cost", "transaction_id"} {
		v, _ := b.Get(k)
		inv.Set(k, v)
	}
	return NewDict("invoice", inv), nil
}

func (t *travel) cancel(a args) (any, error) {
	const flag = "cancel_status"
	if e, err := t.tokenError(a, flag); e != nil || err != nil {
		return e, err
	}
	b := t.booking(a["booking_id"])
	if b == nil {
		return t.fail(flag, "Booking not found"), nil
	}
	cid, _ := b.Get("card_id")
	cost, _ := b.Get("travel_cost")
	card := asDict(func() any { c, _ := t.dict("credit_card_list").Get(cid); return c }())
	if card == nil {
		return nil, raisef("%s", PyRepr(cid))
	}
	bal, _ := card.Get("balance")
	card.Set("balance", numAdd(bal, cost))
	t.dict("booking_record").Delete(a["booking_id"])
	return NewDict(flag, true), nil
}
