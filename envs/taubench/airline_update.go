package taubench

import (
	"strconv"
	"strings"

	"github.com/artist-rl/artist/internal/pyval"
)

// flightView is a flight's fields without "dates", followed by the fields
// of its entry for one day.
func flightView(f, day *pyval.Dict) *pyval.Dict {
	out := pyval.NewDict()
	for _, k := range f.Keys() {
		if k != "dates" {
			v, _ := f.Get(k)
			out.Set(k, v)
		}
	}
	for _, k := range day.Keys() {
		v, _ := day.Get(k)
		out.Set(k, v)
	}
	return out
}

// availableOn returns a flight's entry for date when its status is
// "available".
func availableOn(f *pyval.Dict, date any) *pyval.Dict {
	day, _ := f.Dict("dates").Get(date)
	d, _ := day.(*pyval.Dict)
	if d == nil || d.Str("status") != "available" {
		return nil
	}
	return d
}

func searchDirectFlight(e *Env, a *pyval.Dict) (string, error) {
	flights := e.db.Dict("flights")
	out := []any{}
	for _, k := range flights.Keys() {
		v, _ := flights.Get(k)
		f := v.(*pyval.Dict)
		if !pyval.Equal(f.Str("origin"), arg(a, "origin")) || !pyval.Equal(f.Str("destination"), arg(a, "destination")) {
			continue
		}
		if day := availableOn(f, arg(a, "date")); day != nil {
			out = append(out, flightView(f, day))
		}
	}
	return pyval.MustJSON(out), nil
}

// nextDay is the reference's second-leg date after an overnight first
// leg: "2024-05-" and the day number plus one, not zero-padded.
func nextDay(date any) (string, error) {
	s, ok := date.(string)
	if !ok {
		return "", errorf("'%s' object is not subscriptable", pyval.TypeName(date))
	}
	tail := s
	if len(s) > 2 {
		tail = s[len(s)-2:]
	}
	n, err := strconv.Atoi(strings.TrimSpace(tail))
	if err != nil {
		return "", errorf("invalid literal for int() with base 10: %s", pyval.ReprString(tail))
	}
	return "2024-05-" + strconv.Itoa(n+1), nil
}

func searchOnestopFlight(e *Env, a *pyval.Dict) (string, error) {
	flights := e.db.Dict("flights")
	date := arg(a, "date")
	out := []any{}
	for _, k1 := range flights.Keys() {
		v1, _ := flights.Get(k1)
		f1 := v1.(*pyval.Dict)
		if !pyval.Equal(f1.Str("origin"), arg(a, "origin")) {
			continue
		}
		for _, k2 := range flights.Keys() {
			v2, _ := flights.Get(k2)
			f2 := v2.(*pyval.Dict)
			if !pyval.Equal(f2.Str("destination"), arg(a, "destination")) || f2.Str("origin") != f1.Str("destination") {
				continue
			}
			var date2 any = date
			if strings.Contains(f1.Str("scheduled_arrival_time_est"), "+1") {
				d, err := nextDay(date)
				if err != nil {
					return "", err
				}
				date2 = d
			}
			if f1.Str("scheduled_arrival_time_est") > f2.Str("scheduled_departure_time_est") {
				continue
			}
			day1, day2 := availableOn(f1, date), availableOn(f2, date2)
			if day1 == nil || day2 == nil {
				continue
			}
			shown, ok := f2.Dict("dates").Get(date)
			if !ok {
				return "", keyError(date)
			}
			r1 := flightView(f1, day1)
			r1.Set("date", date)
			r2 := flightView(f2, shown.(*pyval.Dict))
			r2.Set("date", date2)
			out = append(out, []any{r1, r2})
		}
	}
	return pyval.MustJSON(out), nil
}

// reservationPayment finds a payment method of the reservation's user that
// may pay for a change of price: not a certificate, and a gift card only
// with enough balance.
func reservationPayment(e *Env, res *pyval.Dict, id any, price any) (*pyval.Dict, error) {
	user := e.record("users", res.Str("user_id"))
	if user == nil {
		return nil, keyError(res.Str("user_id"))
	}
	if ok, err := has(user.Dict("payment_methods"), id); err != nil {
		return nil, err
	} else if !ok {
		return nil, toolError("payment method not found")
	}
	m, _ := user.Dict("payment_methods").Get(id)
	pm := m.(*pyval.Dict)
	switch pm.Str("source") {
	case "certificate":
		return nil, toolError("certificate cannot be used to update reservation")
	case "gift_card":
		bal, _ := pm.Get("amount")
		if lt, err := less(bal, price); err != nil {
			return nil, err
		} else if lt {
			return nil, toolError("gift card balance is not enough")
		}
	}
	return pm, nil
}

// charge lowers a gift card's amount by price; other methods are not
// touched.
func charge(pm *pyval.Dict, price any) {
	if pm.Str("source") == "gift_card" {
		bal, _ := pm.Get("amount")
		pm.Set("amount", pyval.Sub(bal, price))
	}
}

func updateReservationBaggages(e *Env, a *pyval.Dict) (string, error) {
	res := e.record("reservations", arg(a, "reservation_id"))
	if res == nil {
		return "", toolError("reservation not found")
	}
	old, _ := res.Get("nonfree_baggages")
	extra, err := arith("-", arg(a, "nonfree_baggages"), old)
	if err != nil {
		return "", err
	}
	var price any = int64(0)
	if pyval.Less(int64(0), extra) {
		price = pyval.Mul(int64(50), extra)
	}
	pm, err := reservationPayment(e, res, arg(a, "payment_id"), price)
	if err != nil {
		return "", err
	}
	res.Set("total_baggages", arg(a, "total_baggages"))
	res.Set("nonfree_baggages", arg(a, "nonfree_baggages"))
	charge(pm, price)
	if !pyval.Equal(price, int64(0)) {
		res.Set("payment_history", append(res.List("payment_history"), pyval.NewDict("payment_id", arg(a, "payment_id"), "amount", price)))
	}
	return pyval.MustJSON(res), nil
}

func updateReservationFlights(e *Env, a *pyval.Dict) (string, error) {
	res := e.record("reservations", arg(a, "reservation_id"))
	if res == nil {
		return "", toolError("reservation not found")
	}
	n := int64(len(res.List("passengers")))
	reqs, err := iterList(pyval.DeepCopy(arg(a, "flights")))
	if err != nil {
		return "", err
	}
	cabin := arg(a, "cabin")
	var total any = int64(0)
	segs := []any{}
	for _, req := range reqs {
		seg, err := keptSegment(res, req, cabin)
		if err != nil {
			return "", err
		}
		if seg == nil {
			if seg, err = bookFlight(e, req, cabin, int(n)); err != nil {
				return "", err
			}
		}
		segs = append(segs, seg)
		if total, err = addProduct(total, seg, n); err != nil {
			return "", err
		}
	}
	var old any = int64(0)
	for _, s := range res.List("flights") {
		p, _ := s.(*pyval.Dict).Get("price")
		old = pyval.Add(old, p)
	}
	total = pyval.Sub(total, pyval.Mul(old, n))
	pm, err := reservationPayment(e, res, arg(a, "payment_id"), total)
	if err != nil {
		return "", err
	}
	charge(pm, total)
	res.Set("flights", segs)
	if !pyval.Equal(total, int64(0)) {
		res.Set("payment_history", append(res.List("payment_history"), pyval.NewDict("payment_id", arg(a, "payment_id"), "amount", total)))
	}
	return pyval.MustJSON(res), nil
}

// keptSegment returns the request with the price, origin and destination
// of the reservation's segment on the same flight and date, when the
// cabin is unchanged; nil when there is none.
func keptSegment(res *pyval.Dict, req any, cabin any) (*pyval.Dict, error) {
	fn, err := item(req, "flight_number")
	if err != nil {
		return nil, err
	}
	date, err := item(req, "date")
	if err != nil {
		return nil, err
	}
	if !pyval.Equal(cabin, res.Str("cabin")) {
		return nil, nil
	}
	for _, s := range res.List("flights") {
		sd := s.(*pyval.Dict)
		f, _ := sd.Get("flight_number")
		d, _ := sd.Get("date")
		if pyval.Equal(f, fn) && pyval.Equal(d, date) {
			seg := req.(*pyval.Dict)
			for _, k := range []string{"price", "origin", "destination"} {
				v, _ := sd.Get(k)
				seg.Set(k, v)
			}
			return seg, nil
		}
	}
	return nil, nil
}

func updateReservationPassengers(e *Env, a *pyval.Dict) (string, error) {
	res := e.record("reservations", arg(a, "reservation_id"))
	if res == nil {
		return "", toolError("reservation not found")
	}
	ps, err := iterList(arg(a, "passengers"))
	if err != nil {
		return "", err
	}
	if len(ps) != len(res.List("passengers")) {
		return "", toolError("number of passengers does not match")
	}
	res.Set("passengers", arg(a, "passengers"))
	return pyval.MustJSON(res), nil
}
