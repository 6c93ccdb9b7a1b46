package bfcl

import (
	"github.com/artist-rl/artist/internal/pyval"

	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// tradingClock is the reference's fixed current time.
var tradingClock = time.Date(2024, 9, 1, 10, 30, 0, 0, time.UTC)

// trading is TradingBot.
type trading struct {
	at   *Dict
	rng  *pyRandom
	d    *Data
	long bool
}

func newTrading(d *Data, cfg *Dict, long bool) (api, error) {
	t := &trading{at: loadAttrs(d, "TradingBot", cfg), rng: newPyRandom(1053520), d: d, long: long}
	orders := NewDict()
	src := asDict(t.get("orders"))
	for _, k := range orders0(src) {
		v, _ := src.Get(k)
		if s, ok := k.(string); ok && isDigits(s) {
			n, err := strconv.ParseInt(s, 10, 64)
			if err == nil {
				k = n
			}
		}
		orders.Set(k, v)
	}
	t.at.Set("orders", orders)
	t.at.Set("long_context", long)
	return t, nil
}

func orders0(d *Dict) []any {
	if d == nil {
		return nil
	}
	return d.Keys()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (t *trading) state() *Dict { return t.at }

func (t *trading) get(k string) any { v, _ := t.at.Get(k); return v }

func (t *trading) sub(k string) *Dict { return asDict(t.get(k)) }

func (t *trading) authed() bool { b, _ := t.get("authenticated").(bool); return b }

func (t *trading) methods() map[string]method {
	return map[string]method{
		"get_current_time":            {nil, func(args) (any, error) { return NewDict("current_time", "10:30 AM"), nil }},
		"update_market_status":        {[]param{req("current_time_str", kStr)}, t.marketStatus},
		"get_symbol_by_name":          {[]param{req("name", kStr)}, t.symbolByName},
		"get_stock_info":              {[]param{req("symbol", kStr)}, t.stockInfo},
		"get_order_details":           {[]param{req("order_id", kAny)}, t.orderDetails},
		"cancel_order":                {[]param{req("order_id", kAny)}, t.cancelOrder},
		"place_order":                 {[]param{req("order_type", kStr), req("symbol", kStr), req("price", kNum), req("amount", kAny)}, t.placeOrder},
		"make_transaction":            {[]param{req("account_id", kAny), req("xact_type", kStr), req("amount", kNum)}, t.transaction},
		"get_account_info":            {nil, t.accountInfo},
		"trading_login":               {[]param{req("username", kAny), req("password", kAny)}, t.login},
		"trading_get_login_status":    {nil, func(args) (any, error) { return NewDict("status", t.authed()), nil }},
		"trading_logout":              {nil, t.logout},
		"fund_account":                {[]param{req("amount", kNum)}, t.fund},
		"remove_stock_from_watchlist": {[]param{req("symbol", kStr)}, t.unwatch},
		"get_watchlist":               {nil, t.watchlist},
		"get_order_history":           {nil, t.orderHistory},
		"get_transaction_history":     {[]param{opt("start_date", kStr, nil), opt("end_date", kStr, nil)}, t.history},
		"update_stock_price":          {[]param{req("symbol", kStr), req("new_price", kNum)}, t.updatePrice},
		"get_available_stocks":        {[]param{req("sector", kStr)}, t.available},
		"filter_stocks_by_price":      {[]param{req("stocks", kList), req("min_price", kNum), req("max_price", kNum)}, t.filter},
		"add_to_watchlist":            {[]param{req("stock", kStr)}, t.watch},
		"notify_price_change":         {[]param{req("stocks", kList), req("threshold", kNum)}, t.notify},
	}
}

var clock12 = regexp.MustCompile(`^(1[0-2]|0[1-9]|[1-9]):([0-5]\d|\d) ?(AM|PM|am|pm|Am|aM|pM|Pm)$`)

func (t *trading) marketStatus(a args) (any, error) {
	s := a.str("current_time_str")
	m := clock12.FindStringSubmatch(s)
	if m == nil {
		return nil, raisef("time data %s does not match format '%%I:%%M %%p'", pyval.ReprString(s))
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	h %= 12
	if strings.EqualFold(m[3], "PM") {
		h += 12
	}
	minutes := h*60 + mi
	status := "Closed"
	if minutes >= 9*60+30 && minutes <= 16*60 {
		status = "Open"
	}
	t.at.Set("market_status", status)
	return NewDict("status", status), nil
}

func (t *trading) symbolByName(a args) (any, error) {
	s, ok := t.d.table("trading_company_to_symbol").(*Dict).Get(a.str("name"))
	if !ok {
		s = "Stock not found"
	}
	return NewDict("symbol", s), nil
}

func (t *trading) stockInfo(a args) (any, error) {
	sym := a.str("symbol")
	st, ok := t.sub("stocks").Get(sym)
	if !ok {
		return errDict(fmt.Sprintf("Stock with symbol '%s' not found.", sym)), nil
	}
	if !t.long {
		return st, nil
	}
	out := DeepCopy(st).(*Dict)
	out.Set("MA(5)", t.d.extension("MA_5_EXTENSION"))
	out.Set("MA(20)", t.d.extension("MA_20_EXTENSION"))
	return out, nil
}

func (t *trading) orderDetails(a args) (any, error) {
	id := a["order_id"]
	ov, ok := t.sub("orders").Get(id)
	if !ok {
		keys := append([]any(nil), t.sub("orders").Keys()...)
		return errDict(fmt.Sprintf("Order with ID %s not found.Here is the list of orders_id: %s", PyStr(id), PyRepr(keys))), nil
	}
	if !t.long {
		return ov, nil
	}
	out := DeepCopy(ov).(*Dict)
	sym := PyStr(func() any { s, _ := out.Get("symbol"); return s }())
	meta := NewDict()
	ext := t.d.extension("ORDER_DETAIL_EXTENSION").(*Dict)
	for _, k := range ext.Keys() {
		v, _ := ext.Get(k)
		meta.Set(k, strings.ReplaceAll(v.(string), "{symbol}", sym))
	}
	out.Set("metadata", meta)
	return out, nil
}

func (t *trading) cancelOrder(a args) (any, error) {
	id := a["order_id"]
	ov, ok := t.sub("orders").Get(id)
	if !ok {
		return errDict(fmt.Sprintf("Order with ID %s not found.", PyStr(id))), nil
	}
	o := asDict(ov)
	if s, _ := o.Get("status"); s == "Completed" {
		return errDict(fmt.Sprintf("Can't cancel order %s. Order is already completed.", PyStr(id))), nil
	}
	o.Set("status", "Cancelled")
	return NewDict("order_id", id, "status", "Cancelled"), nil
}

func (t *trading) placeOrder(a args) (any, error) {
	if !t.authed() {
		return errDict("User not authenticated. Please log in to place an order."), nil
	}
	sym := a.str("symbol")
	if !t.sub("stocks").Has(sym) {
		return errDict("Invalid stock symbol: " + sym), nil
	}
	price, amount := a["price"], a["amount"]
	if !numLess(int64(0), price) {
		return errDict("Price and amount must be positive values."), nil
	}
	if low, err := compare("<=", amount, int64(0)); err != nil || low { // amount flows as passed: 2.0 stays a float
		if err != nil {
			return nil, err
		}
		return errDict("Price and amount must be positive values."), nil
	}
	fp := toFloat(price)
	id := t.get("order_counter")
	t.sub("orders").Set(id, NewDict("id", id, "order_type", a["order_type"], "symbol", sym, "price", fp, "amount", amount, "status", "Open"))
	t.at.Set("order_counter", numAdd(id, int64(1)))
	return NewDict("order_id", id, "order_type", a["order_type"], "status", "Pending", "price", fp, "amount", amount), nil
}

// timestamp draws a transaction time within a day of the fixed clock.
func (t *trading) timestamp() string {
	off := t.rng.randint(0, 86400)
	return tradingClock.Add(time.Duration(off) * time.Second).Format("2006-01-02 15:04:05")
}

func (t *trading) record(kind string, amount any) {
	h, _ := t.get("transaction_history").([]any)
	t.at.Set("transaction_history", append(h, NewDict("type", kind, "amount", amount, "timestamp", t.timestamp())))
}

func (t *trading) transaction(a args) (any, error) {
	acct := t.sub("account_info")
	id, _ := acct.Get("account_id")
	amount := a["amount"]
	switch {
	case !t.authed():
		return errDict("User not authenticated. Please log in to make a transaction."), nil
	case t.get("market_status") != "Open":
		return errDict("Market is closed. Transactions are not allowed."), nil
	case !Equal(a["account_id"], id):
		return errDict(fmt.Sprintf("Account with ID %s not found.", PyStr(a["account_id"]))), nil
	case !numLess(int64(0), amount):
		return errDict("Transaction amount must be positive."), nil
	}
	bal, _ := acct.Get("balance")
	switch a.str("xact_type") {
	case "deposit":
		acct.Set("balance", numAdd(bal, amount))
		t.record("deposit", amount)
		return NewDict("status", "Deposit successful", "new_balance", numAdd(bal, amount)), nil
	case "withdrawal":
		if numLess(bal, amount) {
			return errDict("Insufficient funds for withdrawal."), nil
		}
		acct.Set("balance", numSub(bal, amount))
		t.record("withdrawal", amount)
		return NewDict("status", "Withdrawal successful", "new_balance", numSub(bal, amount)), nil
	}
	return errDict("Invalid transaction type. Use 'deposit' or 'withdrawal'."), nil
}

func (t *trading) accountInfo(args) (any, error) {
	if !t.authed() {
		return errDict("User not authenticated. Please log in to view account information."), nil
	}
	return t.get("account_info"), nil
}

func (t *trading) login(args) (any, error) {
	if t.authed() {
		return NewDict("status", "Already logged in"), nil
	}
	t.at.Set("authenticated", true)
	return NewDict("status", "Logged in successfully"), nil
}

func (t *trading) logout(args) (any, error) {
	if !t.authed() {
		return NewDict("status", "No user is currently logged in"), nil
	}
	t.at.Set("authenticated", false)
	return NewDict("status", "Logged out successfully"), nil
}

func (t *trading) fund(a args) (any, error) {
	if !t.authed() {
		return errDict("User not authenticated. Please log in to fund the account."), nil
	}
	amount := a["amount"]
	if !numLess(int64(0), amount) {
		return errDict("Funding amount must be positive."), nil
	}
	acct := t.sub("account_info")
	bal, _ := acct.Get("balance")
	acct.Set("balance", numAdd(bal, amount))
	t.record("deposit", amount)
	return NewDict("status", "Account funded successfully", "new_balance", numAdd(bal, amount)), nil
}

func (t *trading) watchList() []any { l, _ := t.get("watch_list").([]any); return l }

func (t *trading) unwatch(a args) (any, error) {
	if !t.authed() {
		return errDict("User not authenticated. Please log in to modify the watchlist."), nil
	}
	sym := a.str("symbol")
	l := t.watchList()
	for i, s := range l {
		if s == sym {
			t.at.Set("watch_list", append(l[:i:i], l[i+1:]...))
			return NewDict("status", fmt.Sprintf("Stock %s removed from watchlist successfully.", sym)), nil
		}
	}
	return errDict(fmt.Sprintf("Stock %s not found in watchlist.", sym)), nil
}

func (t *trading) watchlist(args) (any, error) {
	if !t.authed() {
		return []any{"Error: User not authenticated. Please log in to view the watchlist."}, nil
	}
	if !t.long {
		return NewDict("watchlist", t.watchList()), nil
	}
	out := append([]any(nil), t.watchList()...)
	ext := t.d.extension("WATCH_LIST_EXTENSION").([]any)
	for i, s := range ext {
		if i == len(ext)-1 && s == "..." {
			out = append(out, Ellipsis{})
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

func (t *trading) orderHistory(args) (any, error) {
	if !t.authed() {
		return []any{errDict("User not authenticated. Please log in to view order history.")}, nil
	}
	return NewDict("history", append([]any(nil), t.sub("orders").Keys()...)), nil
}

func (t *trading) history(a args) (any, error) {
	if !t.authed() {
		return []any{errDict("User not authenticated. Please log in to view transaction history.")}, nil
	}
	lo, hi := "0001-01-01 00:00:00", "9999-12-31 23:59:59.999999"
	for _, p := range []struct {
		name string
		dst  *string
	}{{"start_date", &lo}, {"end_date", &hi}} {
		if s := a.str(p.name); s != "" {
			d, ok := parseDate(s)
			if !ok {
				return nil, raisef("time data %s does not match format '%%Y-%%m-%%d'", pyval.ReprString(s))
			}
			*p.dst = d.Format("2006-01-02 15:04:05")
		}
	}
	out := []any{}
	h, _ := t.get("transaction_history").([]any)
	for _, e := range h {
		ts := asDict(e).Str("timestamp")
		if ts >= lo && ts <= hi {
			out = append(out, e)
		}
	}
	if t.long {
		out = append(out, t.d.extension("TRANSACTION_HISTORY_EXTENSION").([]any)...)
	}
	return NewDict("transaction_history", out), nil
}

func (t *trading) updatePrice(a args) (any, error) {
	sym := a.str("symbol")
	sv, ok := t.sub("stocks").Get(sym)
	if !ok {
		return errDict(fmt.Sprintf("Stock with symbol '%s' not found.", sym)), nil
	}
	np := a["new_price"]
	if !numLess(int64(0), np) {
		return errDict("New price must be a positive value."), nil
	}
	st := asDict(sv)
	old, _ := st.Get("price")
	pct := numDiv(numSub(np, old), old) * 100
	st.Set("price", np)
	st.Set("percent_change", pct)
	return NewDict("symbol", sym, "old_price", old, "new_price", np, "percent_change", pct), nil
}

func (t *trading) available(a args) (any, error) {
	sector := a.str("sector")
	l, _ := t.d.table("trading_sector_stocks").(*Dict).Get(sector)
	out, _ := DeepCopy(l).([]any)
	if out == nil {
		out = []any{}
	}
	if t.long {
		ext := map[string]string{"Technology": "TECHNOLOGY_EXTENSION", "Automobile": "AUTOMOBILE_EXTENSION"}[sector]
		if ext != "" {
			out = append(out, t.d.extension(ext).([]any)...)
		}
	}
	return NewDict("stock_list", out), nil
}

func (t *trading) price(sym any) any {
	sv, ok := t.sub("stocks").Get(sym)
	if !ok {
		return int64(0)
	}
	p, ok := asDict(sv).Get("price")
	if !ok {
		return int64(0)
	}
	return p
}

func (t *trading) filter(a args) (any, error) {
	out := []any{}
	for _, s := range a.list("stocks") {
		p := t.price(s)
		if !numLess(p, a["min_price"]) && !numLess(a["max_price"], p) {
			out = append(out, s)
		}
	}
	return NewDict("filtered_stocks", out), nil
}

func (t *trading) watch(a args) (any, error) {
	s := a.str("stock")
	l := t.watchList()
	if !contains(l, s) && t.sub("stocks").Has(s) {
		l = append(l, s)
		t.at.Set("watch_list", l)
	}
	return NewDict("symbol", l), nil
}

func (t *trading) notify(a args) (any, error) {
	var hit []string
	for _, s := range a.list("stocks") {
		sv, ok := t.sub("stocks").Get(s)
		if !ok {
			continue
		}
		pc, _ := asDict(sv).Get("percent_change")
		if math.Abs(toFloat(pc)) >= toFloat(a["threshold"]) {
			hit = append(hit, PyStr(s))
		}
	}
	if len(hit) == 0 {
		return NewDict("notification", "No significant price changes in the selected stocks."), nil
	}
	return NewDict("notification", fmt.Sprintf("Stocks %s have significant price changes.", strings.Join(hit, ", "))), nil
}
