package taubench

import (
	"sort"
	"strings"

	"github.com/artist-rl/artist/internal/pyval"
)

// itemSwap is one (old item, new variant) pair of an exchange or a
// modification.
type itemSwap struct {
	old     *pyval.Dict // the first order item with the old id
	variant *pyval.Dict
}

// countIn is list.count(v) under Python equality.
func countIn(list []any, v any) int {
	n := 0
	for _, x := range list {
		if pyval.Equal(x, v) {
			n++
		}
	}
	return n
}

// checkItems checks that every id of item_ids is in the order as often as
// it is asked for (notFound formats the error), and returns the ids.
func checkItems(order *pyval.Dict, ids any, notFound func(id any) error) ([]any, error) {
	list, err := iterList(ids)
	if err != nil {
		return nil, err
	}
	var all []any
	for _, it := range order.List("items") {
		id, _ := it.(*pyval.Dict).Get("item_id")
		all = append(all, id)
	}
	for _, id := range list {
		if countIn(list, id) > countIn(all, id) {
			return nil, notFound(id)
		}
	}
	return list, nil
}

// planSwaps runs the checks shared by exchange and modify: item counts,
// matching lengths, and each new id an available variant of the old
// item's product. It returns the pairs and the summed price difference,
// unrounded, starting from int 0.
func planSwaps(e *Env, order, a *pyval.Dict) ([]itemSwap, any, error) {
	olds, err := checkItems(order, arg(a, "item_ids"), func(id any) error { return errorf("%s not found", pyval.Str(id)) })
	if err != nil {
		return nil, nil, err
	}
	news, err := iterList(arg(a, "new_item_ids"))
	if err != nil {
		return nil, nil, err
	}
	if len(olds) != len(news) {
		return nil, nil, toolError("the number of items to be exchanged should match")
	}
	var diff any = int64(0)
	var swaps []itemSwap
	for i, oldID := range olds {
		var old *pyval.Dict
		for _, it := range order.List("items") {
			if id, _ := it.(*pyval.Dict).Get("item_id"); pyval.Equal(id, oldID) {
				old = it.(*pyval.Dict)
				break
			}
		}
		product := e.record("products", old.Str("product_id"))
		if product == nil {
			return nil, nil, keyError(old.Str("product_id"))
		}
		v, _ := product.Dict("variants").Get(news[i])
		variant, _ := v.(*pyval.Dict)
		var avail any
		if variant != nil {
			avail, _ = variant.Get("available")
		}
		if !pyval.Truthy(avail) {
			return nil, nil, errorf("new item %s not found or available", pyval.Str(news[i]))
		}
		newPrice, _ := variant.Get("price")
		oldPrice, _ := old.Get("price")
		diff = pyval.Add(diff, pyval.Sub(newPrice, oldPrice))
		swaps = append(swaps, itemSwap{old: old, variant: variant})
	}
	return swaps, diff, nil
}

// sortedStrings is sorted() of a list of ids.
func sortedStrings(list any) []any {
	l, _ := iterList(list)
	out := append([]any{}, l...)
	sort.SliceStable(out, func(i, j int) bool { return pyval.Str(out[i]) < pyval.Str(out[j]) })
	return out
}

func exchangeDeliveredOrderItems(e *Env, a *pyval.Dict) (string, error) {
	order, err := orderWithStatus(e, a, "delivered", "exchanged")
	if err != nil {
		return "", err
	}
	_, diff, err := planSwaps(e, order, a)
	if err != nil {
		return "", err
	}
	diff = pyval.Round(diff, 2)
	pm, err := userMethod(e, order, arg(a, "payment_method_id"))
	if err != nil {
		return "", err
	}
	if pm.Str("source") == "gift_card" {
		if bal, _ := pm.Get("balance"); pyval.Less(bal, diff) {
			return "", toolError("insufficient gift card balance to pay for the price difference")
		}
	}
	order.Set("status", "exchange requested")
	order.Set("exchange_items", sortedStrings(arg(a, "item_ids")))
	order.Set("exchange_new_items", sortedStrings(arg(a, "new_item_ids")))
	order.Set("exchange_payment_method_id", arg(a, "payment_method_id"))
	order.Set("exchange_price_difference", diff)
	return pyval.MustJSON(order), nil
}

func modifyPendingOrderItems(e *Env, a *pyval.Dict) (string, error) {
	order, err := orderWithStatus(e, a, "pending", "modified")
	if err != nil {
		return "", err
	}
	swaps, diff, err := planSwaps(e, order, a)
	if err != nil {
		return "", err
	}
	id := arg(a, "payment_method_id")
	pm, err := userMethod(e, order, id)
	if err != nil {
		return "", err
	}
	gift := pm.Str("source") == "gift_card"
	if gift {
		if bal, _ := pm.Get("balance"); pyval.Less(bal, diff) {
			return "", toolError("insufficient gift card balance to pay for the new item")
		}
	}
	kind := "refund"
	if pyval.Less(int64(0), diff) {
		kind = "payment"
	}
	order.Set("payment_history", append(order.List("payment_history"),
		pyval.NewDict("transaction_type", kind, "amount", pyval.Abs(diff), "payment_method_id", id)))
	if gift {
		addBalance(pm, pyval.Neg(diff))
	}
	for _, s := range swaps {
		for _, k := range []string{"item_id", "price", "options"} {
			v, _ := s.variant.Get(k)
			s.old.Set(k, v)
		}
	}
	order.Set("status", "pending (item modified)")
	return pyval.MustJSON(order), nil
}

func returnDeliveredOrderItems(e *Env, a *pyval.Dict) (string, error) {
	order, err := orderWithStatus(e, a, "delivered", "returned")
	if err != nil {
		return "", err
	}
	id := arg(a, "payment_method_id")
	if _, err := userMethod(e, order, id); err != nil {
		return "", err
	}
	s, _ := id.(string)
	var original any
	if hist := order.List("payment_history"); len(hist) > 0 {
		original, _ = hist[0].(*pyval.Dict).Get("payment_method_id")
	}
	if !strings.Contains(s, "gift_card") && !pyval.Equal(id, original) {
		return "", toolError("payment method should be either the original payment method or a gift card")
	}
	if _, err := checkItems(order, arg(a, "item_ids"), func(any) error { return toolError("some item not found") }); err != nil {
		return "", err
	}
	order.Set("status", "return requested")
	order.Set("return_items", sortedStrings(arg(a, "item_ids")))
	order.Set("return_payment_method_id", id)
	return pyval.MustJSON(order), nil
}
