package taubench

import (
	"github.com/artist-rl/artist/internal/pyval"
)

// createdAt is the fixed booking time the reference stamps on every new
// reservation.
const createdAt = "2024-05-15T15:00:00"

// airports is list_all_airports' fixed answer, in its order.
var airports = []string{
	"SFO", "San Francisco", "JFK", "New York", "LAX", "Los Angeles", "ORD", "Chicago",
	"DFW", "Dallas", "DEN", "Denver", "SEA", "Seattle", "ATL", "Atlanta", "MIA", "Miami",
	"BOS", "Boston", "PHX", "Phoenix", "IAH", "Houston", "LAS", "Las Vegas", "MCO", "Orlando",
	"EWR", "Newark", "CLT", "Charlotte", "MSP", "Minneapolis", "DTW", "Detroit",
	"PHL", "Philadelphia", "LGA", "LaGuardia",
}

func airlineTools() map[string]tool {
	return map[string]tool{
		"book_reservation": {params: []string{"user_id", "origin", "destination", "flight_type", "cabin", "flights",
			"passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance"}, run: bookReservation},
		"cancel_reservation":      {params: []string{"reservation_id"}, run: cancelReservation},
		"get_reservation_details": {params: []string{"reservation_id"}, run: getReservationDetails},
		"get_user_details":        {params: []string{"user_id"}, run: getRecord("users", "user_id", "user not found")},
		"list_all_airports": {params: []string{}, run: func(*Env, *pyval.Dict) (string, error) {
			kv := make([]any, len(airports))
			for i, s := range airports {
				kv[i] = s
			}
			return pyval.MustJSON(pyval.NewDict(kv...)), nil
		}},
		"search_direct_flight":          {params: []string{"origin", "destination", "date"}, run: searchDirectFlight},
		"search_onestop_flight":         {params: []string{"origin", "destination", "date"}, run: searchOnestopFlight},
		"send_certificate":              {params: []string{"user_id", "amount"}, run: sendCertificate},
		"update_reservation_baggages":   {params: []string{"reservation_id", "total_baggages", "nonfree_baggages", "payment_id"}, run: updateReservationBaggages},
		"update_reservation_flights":    {params: []string{"reservation_id", "cabin", "flights", "payment_id"}, run: updateReservationFlights},
		"update_reservation_passengers": {params: []string{"reservation_id", "passengers"}, run: updateReservationPassengers},
	}
}

// getRecord is a tool that returns one record of a collection as JSON.
func getRecord(collection, param, notFound string) func(*Env, *pyval.Dict) (string, error) {
	return func(e *Env, a *pyval.Dict) (string, error) {
		r := e.record(collection, arg(a, param))
		if r == nil {
			return "", toolError(notFound)
		}
		return pyval.MustJSON(r), nil
	}
}

// getReservationDetails says "user not found" for an unknown id, as the
// reference does.
func getReservationDetails(e *Env, a *pyval.Dict) (string, error) {
	return getRecord("reservations", "reservation_id", "user not found")(e, a)
}

// bookFlight checks one requested segment against the flights table for
// n passengers in cabin and returns the stored segment: a copy of the
// request with price, origin and destination set.
func bookFlight(e *Env, req any, cabin any, n int) (*pyval.Dict, error) {
	fn, err := item(req, "flight_number")
	if err != nil {
		return nil, err
	}
	flight := e.record("flights", fn)
	if flight == nil {
		return nil, errorf("flight %s not found", pyval.Str(fn))
	}
	date, err := item(req, "date")
	if err != nil {
		return nil, err
	}
	day, _ := flight.Dict("dates").Get(date)
	if day == nil {
		return nil, errorf("flight %s not found on date %s", pyval.Str(fn), pyval.Str(date))
	}
	dayD := day.(*pyval.Dict)
	if dayD.Str("status") != "available" {
		return nil, errorf("flight %s not available on date %s", pyval.Str(fn), pyval.Str(date))
	}
	cab, _ := cabin.(string)
	seats, ok := dayD.Dict("available_seats").Get(cab)
	if !ok {
		return nil, keyError(cabin)
	}
	if pyval.Less(seats, int64(n)) {
		return nil, errorf("not enough seats on flight %s", pyval.Str(fn))
	}
	price, ok := dayD.Dict("prices").Get(cab)
	if !ok {
		return nil, keyError(cabin)
	}
	seg := pyval.DeepCopy(req).(*pyval.Dict)
	seg.Set("price", price)
	seg.Set("origin", flight.Str("origin"))
	seg.Set("destination", flight.Str("destination"))
	return seg, nil
}

func bookReservation(e *Env, a *pyval.Dict) (string, error) {
	user := e.record("users", arg(a, "user_id"))
	if user == nil {
		return "", toolError("user not found")
	}
	reservations := e.db.Dict("reservations")
	id := "HATHAT"
	if reservations.Has(id) {
		id = "HATHAU"
	}
	if reservations.Has(id) {
		id = "HATHAV"
	}
	segs, total, err := bookingSegments(e, a)
	if err != nil {
		return "", err
	}
	pays, err := checkBookingPayments(user, arg(a, "payment_methods"), total)
	if err != nil {
		return "", err
	}
	if err := applyBookingPayments(user, pays); err != nil {
		return "", err
	}
	res := pyval.NewDict(
		"reservation_id", id, "user_id", arg(a, "user_id"), "origin", arg(a, "origin"),
		"destination", arg(a, "destination"), "flight_type", arg(a, "flight_type"), "cabin", arg(a, "cabin"),
		"flights", segs, "passengers", arg(a, "passengers"), "payment_history", arg(a, "payment_methods"),
		"created_at", createdAt, "total_baggages", arg(a, "total_baggages"),
		"nonfree_baggages", arg(a, "nonfree_baggages"), "insurance", arg(a, "insurance"))
	reservations.Set(id, res)
	e.own("reservations", id)
	user.Set("reservations", append(user.List("reservations"), id))
	return pyval.MustJSON(res), nil
}

// bookingSegments checks the requested flights of a booking and returns
// the stored segments and the total price: segment prices times
// passengers, 30 per passenger for insurance, 50 per paid bag.
func bookingSegments(e *Env, a *pyval.Dict) ([]any, any, error) {
	passengers, err := iterList(arg(a, "passengers"))
	if err != nil {
		return nil, nil, err
	}
	n := int64(len(passengers))
	reqs, err := iterList(arg(a, "flights"))
	if err != nil {
		return nil, nil, err
	}
	var total any = int64(0)
	segs := []any{}
	for _, req := range reqs {
		seg, err := bookFlight(e, req, arg(a, "cabin"), int(n))
		if err != nil {
			return nil, nil, err
		}
		segs = append(segs, seg)
		if total, err = addProduct(total, seg, n); err != nil {
			return nil, nil, err
		}
	}
	if arg(a, "insurance") == "yes" {
		total = pyval.Add(total, 30*n)
	}
	bags, err := arith("*", int64(50), arg(a, "nonfree_baggages"))
	if err != nil {
		return nil, nil, err
	}
	return segs, pyval.Add(total, bags), nil
}

// applyBookingPayments charges gift cards and removes certificates. A
// certificate named twice fails on its second removal, after the earlier
// payments took effect, as in the reference.
func applyBookingPayments(user *pyval.Dict, pays []payment) error {
	methods := user.Dict("payment_methods")
	for _, p := range pays {
		m, _ := methods.Get(p.id)
		if m == nil {
			return keyError(p.id)
		}
		switch md := m.(*pyval.Dict); md.Str("source") {
		case "gift_card":
			amt, _ := md.Get("amount")
			md.Set("amount", pyval.Sub(amt, p.amount))
		case "certificate":
			methods.Delete(p.id)
		}
	}
	return nil
}

// addProduct returns total + seg.price * n.
func addProduct(total any, seg *pyval.Dict, n int64) (any, error) {
	price, _ := seg.Get("price")
	p, err := arith("*", price, n)
	if err != nil {
		return nil, err
	}
	return arith("+", total, p)
}

type payment struct {
	id     any
	amount any
}

// checkBookingPayments checks book_reservation's payment list against the
// user's methods and the total, and returns it.
func checkBookingPayments(user *pyval.Dict, list any, total any) ([]payment, error) {
	items, err := iterList(list)
	if err != nil {
		return nil, err
	}
	methods := user.Dict("payment_methods")
	var pays []payment
	for _, it := range items {
		id, err := item(it, "payment_id")
		if err != nil {
			return nil, err
		}
		amount, err := item(it, "amount")
		if err != nil {
			return nil, err
		}
		if ok, err := has(methods, id); err != nil {
			return nil, err
		} else if !ok {
			return nil, errorf("payment method %s not found", pyval.Str(id))
		}
		m, _ := methods.Get(id)
		md := m.(*pyval.Dict)
		if src := md.Str("source"); src == "gift_card" || src == "certificate" {
			bal, _ := md.Get("amount")
			if lt, err := less(bal, amount); err != nil {
				return nil, err
			} else if lt {
				return nil, errorf("not enough balance in payment method %s", pyval.Str(id))
			}
		}
		pays = append(pays, payment{id, amount})
	}
	var paid any = int64(0)
	for _, p := range pays {
		if paid, err = arith("+", paid, p.amount); err != nil {
			return nil, err
		}
	}
	if !pyval.Equal(paid, total) {
		return nil, errorf("payment amount does not add up, total price is %s, but paid %s", pyval.Str(total), pyval.Str(paid))
	}
	return pays, nil
}

func cancelReservation(e *Env, a *pyval.Dict) (string, error) {
	res := e.record("reservations", arg(a, "reservation_id"))
	if res == nil {
		return "", toolError("reservation not found")
	}
	var refunds []any
	for _, p := range res.List("payment_history") {
		pd := p.(*pyval.Dict)
		amt, _ := pd.Get("amount")
		refunds = append(refunds, pyval.NewDict("payment_id", pd.Str("payment_id"), "amount", pyval.Neg(amt)))
	}
	res.Set("payment_history", append(res.List("payment_history"), refunds...))
	res.Set("status", "cancelled")
	return pyval.MustJSON(res), nil
}

func sendCertificate(e *Env, a *pyval.Dict) (string, error) {
	user := e.record("users", arg(a, "user_id"))
	if user == nil {
		return "", toolError("user not found")
	}
	methods := user.Dict("payment_methods")
	for _, id := range []string{"certificate_3221322", "certificate_3221323", "certificate_3221324"} {
		if !methods.Has(id) {
			methods.Set(id, pyval.NewDict("source", "certificate", "amount", arg(a, "amount"), "id", id))
			return "Certificate " + id + " added to user " + pyval.Str(arg(a, "user_id")) + " with amount " + pyval.Str(arg(a, "amount")) + ".", nil
		}
	}
	return "", ErrNoOutput
}
