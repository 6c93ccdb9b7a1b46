package bfcl

import (
	"fmt"
	"strconv"
	"strings"
)

// twitter is TwitterAPI.
type twitter struct{ at *Dict }

func newTwitter(d *Data, cfg *Dict, long bool) (api, error) {
	t := &twitter{at: loadAttrs(d, "TwitterAPI", cfg)}
	src := asDict(t.get("tweets"))
	tweets := NewDict()
	if src != nil {
		for _, k := range src.Keys() {
			v, _ := src.Get(k)
			n, err := strconv.ParseInt(strings.TrimSpace(PyStr(k)), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("tweet id %s is not an int", PyRepr(k))
			}
			tweets.Set(n, v)
		}
	}
	t.at.Set("tweets", tweets)
	return t, nil
}

func (t *twitter) state() *Dict { return t.at }

func (t *twitter) get(k string) any { v, _ := t.at.Get(k); return v }

func (t *twitter) authed() bool { b, _ := t.get("authenticated").(bool); return b }

func (t *twitter) tweets() *Dict { return asDict(t.get("tweets")) }

func (t *twitter) following() []any { l, _ := t.get("following_list").([]any); return l }

func (t *twitter) methods() map[string]method {
	id := req("tweet_id", kAny)
	return map[string]method{
		"authenticate_twitter":     {[]param{req("username", kAny), req("password", kAny)}, t.auth},
		"posting_get_login_status": {nil, func(args) (any, error) { return NewDict("login_status", t.authed()), nil }},
		"post_tweet":               {[]param{req("content", kAny), opt("tags", kAny, []any{}), opt("mentions", kAny, []any{})}, t.post},
		"retweet":                  {[]param{id}, t.retweet},
		"comment":                  {[]param{id, req("comment_content", kAny)}, t.comment},
		"mention":                  {[]param{id, req("mentioned_usernames", kList)}, t.mention},
		"follow_user":              {[]param{req("username_to_follow", kAny)}, t.follow},
		"list_all_following": {nil, func(args) (any, error) {
			if !t.authed() {
				return errDict("User not authenticated. Please authenticate before listing following."), nil
			}
			return t.following(), nil
		}},
		"unfollow_user":      {[]param{req("username_to_unfollow", kAny)}, t.unfollow},
		"get_tweet":          {[]param{id}, t.getTweet},
		"get_user_tweets":    {[]param{req("username", kAny)}, t.userTweets},
		"search_tweets":      {[]param{req("keyword", kStr)}, t.search},
		"get_tweet_comments": {[]param{id}, t.comments},
		"get_user_stats":     {[]param{req("username", kAny)}, t.stats},
	}
}

func (t *twitter) auth(a args) (any, error) {
	if Equal(a["username"], t.get("username")) && Equal(a["password"], t.get("password")) {
		t.at.Set("authenticated", true)
		return NewDict("authentication_status", true), nil
	}
	return NewDict("authentication_status", false), nil
}

func (t *twitter) post(a args) (any, error) {
	if !t.authed() {
		return errDict("User not authenticated. Please authenticate before posting."), nil
	}
	id := t.get("tweet_counter")
	tw := NewDict("id", id, "username", t.get("username"), "content", a["content"], "tags", a["tags"], "mentions", a["mentions"])
	t.tweets().Set(id, tw)
	t.at.Set("tweet_counter", numAdd(id, int64(1)))
	return tw, nil
}

func notFound(id any) *Dict { return errDict(fmt.Sprintf("Tweet with ID %s not found.", PyStr(id))) }

func (t *twitter) retweet(a args) (any, error) {
	if !t.authed() {
		return errDict("User not authenticated. Please authenticate before retweeting."), nil
	}
	id := a["tweet_id"]
	if !t.tweets().Has(id) {
		return notFound(id), nil
	}
	rts := asDict(t.get("retweets"))
	user := t.get("username")
	l, ok := rts.Get(user)
	if !ok {
		l = []any{}
	}
	ll, _ := l.([]any)
	if contains(ll, id) {
		rts.Set(user, ll)
		return NewDict("retweet_status", "Already retweeted"), nil
	}
	rts.Set(user, append(ll, id))
	return NewDict("retweet_status", "Successfully retweeted"), nil
}

func (t *twitter) comment(a args) (any, error) {
	if !t.authed() {
		return nil, raisef("exceptions must derive from BaseException")
	}
	id := a["tweet_id"]
	if !t.tweets().Has(id) {
		return notFound(id), nil
	}
	cs := asDict(t.get("comments"))
	l, _ := cs.Get(id)
	ll, _ := l.([]any)
	cs.Set(id, append(ll, NewDict("username", t.get("username"), "content", a["comment_content"])))
	return NewDict("comment_status", "Comment added successfully"), nil
}

func (t *twitter) mention(a args) (any, error) {
	id := a["tweet_id"]
	tv, ok := t.tweets().Get(id)
	if !ok {
		return notFound(id), nil
	}
	tw := asDict(tv)
	m, _ := tw.Get("mentions")
	ml, _ := m.([]any)
	tw.Set("mentions", append(ml, a.list("mentioned_usernames")...))
	return NewDict("mention_status", "Users mentioned successfully"), nil
}

func (t *twitter) follow(a args) (any, error) {
	if !t.authed() {
		return errDict("User not authenticated. Please authenticate before following."), nil
	}
	u := a["username_to_follow"]
	if contains(t.following(), u) {
		return NewDict("follow_status", false), nil
	}
	t.at.Set("following_list", append(t.following(), u))
	return NewDict("follow_status", true), nil
}

func (t *twitter) unfollow(a args) (any, error) {
	if !t.authed() {
		return errDict("User not authenticated. Please authenticate before unfollowing."), nil
	}
	u := a["username_to_unfollow"]
	l := t.following()
	for i, x := range l {
		if Equal(x, u) {
			t.at.Set("following_list", append(l[:i:i], l[i+1:]...))
			return NewDict("unfollow_status", true), nil
		}
	}
	return NewDict("unfollow_status", false), nil
}

func (t *twitter) getTweet(a args) (any, error) {
	tv, ok := t.tweets().Get(a["tweet_id"])
	if !ok {
		return notFound(a["tweet_id"]), nil
	}
	return tv, nil
}

func (t *twitter) filterTweets(keep func(*Dict) bool) []any {
	out := []any{}
	for _, k := range t.tweets().Keys() {
		v, _ := t.tweets().Get(k)
		if keep(asDict(v)) {
			out = append(out, v)
		}
	}
	return out
}

func (t *twitter) userTweets(a args) (any, error) {
	return t.filterTweets(func(tw *Dict) bool { u, _ := tw.Get("username"); return Equal(u, a["username"]) }), nil
}

func (t *twitter) search(a args) (any, error) {
	kw := strings.ToLower(a.str("keyword"))
	return t.filterTweets(func(tw *Dict) bool {
		if strings.Contains(strings.ToLower(tw.Str("content")), kw) {
			return true
		}
		tags, _ := tw.Get("tags")
		l, _ := tags.([]any)
		for _, tag := range l {
			if s, ok := tag.(string); ok && strings.ToLower(s) == kw {
				return true
			}
		}
		return false
	}), nil
}

func (t *twitter) comments(a args) (any, error) {
	id := a["tweet_id"]
	if !t.tweets().Has(id) {
		return notFound(id), nil
	}
	c, ok := asDict(t.get("comments")).Get(id)
	if !ok {
		return []any{}, nil
	}
	return c, nil
}

func (t *twitter) stats(a args) (any, error) {
	u := a["username"]
	n := int64(len(t.filterTweets(func(tw *Dict) bool { x, _ := tw.Get("username"); return Equal(x, u) })))
	following := int64(0)
	if Equal(u, t.get("username")) {
		following = int64(len(t.following()))
	}
	r, _ := asDict(t.get("retweets")).Get(u)
	rl, _ := r.([]any)
	return NewDict("tweets", n, "following", following, "retweets", int64(len(rl))), nil
}
