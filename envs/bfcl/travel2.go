package bfcl

import (
	"math"
	"strconv"
	"strings"
)

func (t *travel) exchange(a args) (any, error) {
	base, target, v := a.str("base_currency"), a.str("target_currency"), a["value"]
	for _, row := range t.d.table("travel_exchange_rates").([]any) {
		r := row.([]any)
		switch {
		case r[0] == base && r[1] == target:
			return NewDict("exchanged_value", numMul(v, r[2])), nil
		case r[1] == base && r[0] == target:
			return NewDict("exchanged_value", pyRound(numDiv(v, r[2]), 2)), nil
		}
	}
	return nil, raisef("No available exchange rate for the given currencies.")
}

// pyRound is Python's round(x, n) for a float: the exact binary value
// rounded to n decimals, ties to even.
func pyRound(x float64, n int) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || n > 323: // past any float's digits, as Python
		return x
	case n < -308:
		return 0 * x
	case n < 0:
		p := math.Pow(10, float64(-n))
		return pyRound(x/p, 0) * p
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', n, 64), 64)
	return f
}

func (t *travel) verify(a args) (any, error) {
	first, last := a.str("first_name"), a.str("last_name")
	fail := func(msg string) (any, error) {
		return NewDict("verification_status", false, "verification_failure", msg), nil
	}
	if !Equal(t.get("user_first_name"), first) || !Equal(t.get("user_last_name"), last) {
		return fail("Cannot book flight information for another user.Expected " + PyStr(t.get("user_first_name")) +
			" " + PyStr(t.get("user_last_name")) + ", got " + first + " " + last)
	}
	birth, ok := parseDate(a.str("date_of_birth"))
	if !ok {
		return fail("Invalid date of birth format. Please use YYYY-MM-DD.")
	}
	now := t.now()
	age := now.Year() - birth.Year()
	if int(now.Month()) < int(birth.Month()) || (now.Month() == birth.Month() && now.Day() < birth.Day()) {
		age--
	}
	if age < 18 {
		return fail("Traveler must be at least 18 years old.")
	}
	if !strings.HasPrefix(a.str("passport_number"), "US") {
		return fail("Passport must be issued by the United States.")
	}
	return NewDict("verification_status", true), nil
}

func (t *travel) setBudget(a args) (any, error) {
	if e, err := t.tokenError(a, ""); e != nil || err != nil {
		return e, err
	}
	lim := toFloat(a["budget_limit"])
	t.at.Set("budget_limit", lim)
	return NewDict("budget_limit", lim), nil
}

func (t *travel) nearestAirport(a args) (any, error) {
	code, ok := t.d.table("travel_city_to_airport").(*Dict).Get(a.str("location"))
	if !ok {
		code = "Unknown"
	}
	return NewDict("nearest_airport", code), nil
}

func (t *travel) insurance(a args) (any, error) {
	const flag = "insurance_status"
	if e, err := t.tokenError(a, flag); e != nil || err != nil {
		return e, err
	}
	cost := a["insurance_cost"]
	if lim := t.get("budget_limit"); lim != nil && numLess(lim, cost) {
		return t.fail(flag, "Exceeded budget limit"), nil
	}
	if t.booking(a["booking_id"]) == nil {
		return t.fail(flag, "Booking not found"), nil
	}
	cv, ok := t.dict("credit_card_list").Get(a["card_id"])
	if !ok {
		return t.fail(flag, "Credit card not registered"), nil
	}
	card := asDict(cv)
	bal, _ := card.Get("balance")
	card.Set("balance", numSub(bal, cost))
	id := strconv.FormatInt(t.rng.randint(100000000, 999999999), 10)
	return NewDict("insurance_id", id, flag, true), nil
}

func (t *travel) support(a args) (any, error) {
	if t.booking(a["booking_id"]) == nil {
		return errDict("Booking not found"), nil
	}
	return NewDict("customer_support_message", "Thank you for contacting customer support. Your message has been received and we will get back to you shortly."), nil
}
