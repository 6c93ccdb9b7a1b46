package taubench

import (
	"sort"
	"strings"

	"github.com/artist-rl/artist/internal/pyval"
)

func retailTools() map[string]tool {
	return map[string]tool{
		"cancel_pending_order":           {params: []string{"order_id", "reason"}, run: cancelPendingOrder},
		"exchange_delivered_order_items": {params: []string{"order_id", "item_ids", "new_item_ids", "payment_method_id"}, run: exchangeDeliveredOrderItems},
		"find_user_id_by_email":          {params: []string{"email"}, run: findUserIDByEmail},
		"find_user_id_by_name_zip":       {params: []string{"first_name", "last_name", "zip"}, run: findUserIDByNameZip},
		"get_order_details":              {params: []string{"order_id"}, run: getRecord("orders", "order_id", "order not found")},
		"get_product_details":            {params: []string{"product_id"}, run: getRecord("products", "product_id", "product not found")},
		"get_user_details":               {params: []string{"user_id"}, run: getRecord("users", "user_id", "user not found")},
		"list_all_product_types":         {params: []string{}, run: listAllProductTypes},
		"modify_pending_order_address": {params: []string{"order_id", "address1", "address2", "city", "state", "country", "zip"},
			run: modifyPendingOrderAddress},
		"modify_pending_order_items":   {params: []string{"order_id", "item_ids", "new_item_ids", "payment_method_id"}, run: modifyPendingOrderItems},
		"modify_pending_order_payment": {params: []string{"order_id", "payment_method_id"}, run: modifyPendingOrderPayment},
		"modify_user_address": {params: []string{"user_id", "address1", "address2", "city", "state", "country", "zip"},
			run: modifyUserAddress},
		"return_delivered_order_items": {params: []string{"order_id", "item_ids", "payment_method_id"}, run: returnDeliveredOrderItems},
	}
}

// orderWithStatus returns the order named by the order_id argument when
// its status is exactly status; otherwise the error says "order not found"
// or "non-<status> order cannot be <verb>".
func orderWithStatus(e *Env, a *pyval.Dict, status, verb string) (*pyval.Dict, error) {
	order := e.record("orders", arg(a, "order_id"))
	if order == nil {
		return nil, toolError("order not found")
	}
	if order.Str("status") != status {
		return nil, errorf("non-%s order cannot be %s", status, verb)
	}
	return order, nil
}

// userMethod returns the payment method id of the order's user, or the
// error "payment method not found".
func userMethod(e *Env, order *pyval.Dict, id any) (*pyval.Dict, error) {
	user := e.record("users", order.Str("user_id"))
	if user == nil {
		return nil, keyError(order.Str("user_id"))
	}
	ok, err := has(user.Dict("payment_methods"), id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, toolError("payment method not found")
	}
	m, _ := user.Dict("payment_methods").Get(id)
	return m.(*pyval.Dict), nil
}

// giftCardByID is the gift card method id of the order's user, for the
// checks that test whether the id string contains "gift_card".
func giftCardByID(e *Env, order *pyval.Dict, id string) (*pyval.Dict, error) {
	user := e.record("users", order.Str("user_id"))
	if user == nil {
		return nil, keyError(order.Str("user_id"))
	}
	m, ok := user.Dict("payment_methods").Get(id)
	if !ok {
		return nil, keyError(id)
	}
	return m.(*pyval.Dict), nil
}

// addBalance sets balance = round(balance + delta, 2).
func addBalance(pm *pyval.Dict, delta any) {
	bal, _ := pm.Get("balance")
	pm.Set("balance", pyval.Round(pyval.Add(bal, delta), 2))
}

func cancelPendingOrder(e *Env, a *pyval.Dict) (string, error) {
	order, err := orderWithStatus(e, a, "pending", "cancelled")
	if err != nil {
		return "", err
	}
	reason := arg(a, "reason")
	if reason != "no longer needed" && reason != "ordered by mistake" {
		return "", toolError("invalid reason")
	}
	var refunds []any
	for _, p := range order.List("payment_history") {
		pd := p.(*pyval.Dict)
		id := pd.Str("payment_method_id")
		amt, _ := pd.Get("amount")
		refunds = append(refunds, pyval.NewDict("transaction_type", "refund", "amount", amt, "payment_method_id", id))
		if strings.Contains(id, "gift_card") {
			pm, err := giftCardByID(e, order, id)
			if err != nil {
				return "", err
			}
			addBalance(pm, amt)
		}
	}
	order.Set("status", "cancelled")
	order.Set("cancel_reason", reason)
	order.Set("payment_history", append(order.List("payment_history"), refunds...))
	return pyval.MustJSON(order), nil
}

func findUserIDByEmail(e *Env, a *pyval.Dict) (string, error) {
	email, _ := arg(a, "email").(string)
	users := e.db.Dict("users")
	for _, k := range users.Keys() {
		u, _ := users.Get(k)
		if strings.ToLower(u.(*pyval.Dict).Str("email")) == strings.ToLower(email) {
			return k.(string), nil
		}
	}
	return "", toolError("user not found")
}

func findUserIDByNameZip(e *Env, a *pyval.Dict) (string, error) {
	first, _ := arg(a, "first_name").(string)
	last, _ := arg(a, "last_name").(string)
	users := e.db.Dict("users")
	for _, k := range users.Keys() {
		v, _ := users.Get(k)
		u := v.(*pyval.Dict)
		name := u.Dict("name")
		if strings.ToLower(name.Str("first_name")) == strings.ToLower(first) &&
			strings.ToLower(name.Str("last_name")) == strings.ToLower(last) &&
			pyval.Equal(u.Dict("address").Str("zip"), arg(a, "zip")) {
			return k.(string), nil
		}
	}
	return "", toolError("user not found")
}

func listAllProductTypes(e *Env, _ *pyval.Dict) (string, error) {
	products := e.db.Dict("products")
	byName := map[string]any{}
	for _, k := range products.Keys() {
		v, _ := products.Get(k)
		p := v.(*pyval.Dict)
		id, _ := p.Get("product_id")
		byName[p.Str("name")] = id
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	out := pyval.NewDict()
	for _, n := range names {
		out.Set(n, byName[n])
	}
	return pyval.MustJSON(out), nil
}

// newAddress builds the address object tools write, keys in the order
// address1, address2, city, state, country, zip.
func newAddress(a *pyval.Dict) *pyval.Dict {
	out := pyval.NewDict()
	for _, k := range []string{"address1", "address2", "city", "state", "country", "zip"} {
		out.Set(k, arg(a, k))
	}
	return out
}

func modifyPendingOrderAddress(e *Env, a *pyval.Dict) (string, error) {
	order, err := orderWithStatus(e, a, "pending", "modified")
	if err != nil {
		return "", err
	}
	order.Set("address", newAddress(a))
	return pyval.MustJSON(order), nil
}

func modifyUserAddress(e *Env, a *pyval.Dict) (string, error) {
	user := e.record("users", arg(a, "user_id"))
	if user == nil {
		return "", toolError("user not found")
	}
	user.Set("address", newAddress(a))
	return pyval.MustJSON(user), nil
}

func modifyPendingOrderPayment(e *Env, a *pyval.Dict) (string, error) {
	order, err := orderWithStatus(e, a, "pending", "modified")
	if err != nil {
		return "", err
	}
	newID := arg(a, "payment_method_id")
	pm, err := userMethod(e, order, newID)
	if err != nil {
		return "", err
	}
	hist := order.List("payment_history")
	if len(hist) == 0 {
		return "", toolError("list index out of range")
	}
	first := hist[0].(*pyval.Dict)
	if len(hist) > 1 || first.Str("transaction_type") != "payment" {
		return "", toolError("there should be exactly one payment for a pending order")
	}
	oldID := first.Str("payment_method_id")
	if pyval.Equal(oldID, newID) {
		return "", toolError("the new payment method should be different from the current one")
	}
	amount, _ := first.Get("amount")
	if pm.Str("source") == "gift_card" {
		bal, _ := pm.Get("balance")
		if pyval.Less(bal, amount) {
			return "", toolError("insufficient gift card balance to pay for the order")
		}
	}
	order.Set("payment_history", append(hist,
		pyval.NewDict("transaction_type", "payment", "amount", amount, "payment_method_id", newID),
		pyval.NewDict("transaction_type", "refund", "amount", amount, "payment_method_id", oldID)))
	if pm.Str("source") == "gift_card" {
		addBalance(pm, pyval.Neg(amount))
	}
	if strings.Contains(oldID, "gift_card") {
		old, err := giftCardByID(e, order, oldID)
		if err != nil {
			return "", err
		}
		addBalance(old, amount)
	}
	return pyval.MustJSON(order), nil
}
