package fcsynth

import (
	"fmt"
	"math/rand"

	"github.com/artist-rl/artist/envs/bfcl"
)

// step is one user request and the single call that serves it. Every
// argument value of the call is written in the request, so a policy can
// copy it.
type step struct {
	fn  string // the function called
	gen func(r *rand.Rand, c *convo) (text, call string)
}

// api is the templates of one BFCL API class. A class with a login makes
// it the first turn of every conversation: the other steps need it.
type api struct {
	class  string
	config func(r *rand.Rand, c *convo) *bfcl.Dict // the class's initial_config; nil keeps the defaults
	login  *step
	steps  []step
}

// convo carries the values a conversation's turns share (the account its
// login names).
type convo struct {
	user, password string
}

var (
	words    = []string{"alpha", "beta", "delta", "echo", "gamma", "kilo", "lima", "nova", "omega", "sigma", "tango", "zulu"}
	streets  = []string{"Main", "Oak", "Pine", "Maple", "Cedar", "Elm", "Lake", "Hill"}
	options  = []string{"fuel", "battery", "doors", "climate", "headlights", "parkingBrake", "brakePedal", "engine"}
	symbols  = []string{"AAPL", "GOOG", "TSLA", "MSFT", "NVDA", "AMZN"}
	company  = []string{"Apple", "Google", "Tesla", "Microsoft", "Nvidia", "Amazon"}
	userIDs  = []string{"USR001", "USR002", "USR003", "USR004"}
	messages = []string{"hello", "see you soon", "call me", "meeting at noon", "thanks", "good luck"}
)

func pick(r *rand.Rand, l []string) string { return l[r.Intn(len(l))] }

// binary returns the step of the function fn of a and b, asked with the
// format ask of a and b: a is drawn from 1 to 9, b from bMin to 9.
func binary(fn, ask string, bMin int) step {
	return step{fn, func(r *rand.Rand, _ *convo) (string, string) {
		a, b := 1+r.Intn(9), bMin+r.Intn(10-bMin)
		return fmt.Sprintf(ask, a, b), fmt.Sprintf("%s(a=%d, b=%d)", fn, a, b)
	}}
}

// apis lists the classes conversations are drawn from, in a fixed order
// that generation depends on.
var apis = []api{
	{class: "MathAPI", steps: []step{
		binary("add", "Add %d and %d.", 1),
		binary("subtract", "What is %d minus %d?", 1),
		binary("multiply", "Multiply %d by %d.", 1),
		binary("divide", "Divide %d by %d.", 2),
		{"percentage", func(r *rand.Rand, _ *convo) (string, string) {
			w := 2 + r.Intn(8)
			p := 1 + r.Intn(w)
			return fmt.Sprintf("What percentage of %d is %d?", w, p), fmt.Sprintf("percentage(part=%d, whole=%d)", p, w)
		}},
	}},
	{class: "VehicleControlAPI", steps: []step{
		{"fillFuelTank", func(r *rand.Rand, _ *convo) (string, string) {
			g := 1 + r.Intn(9)
			return fmt.Sprintf("Fill the tank with %d gallons.", g), fmt.Sprintf("fillFuelTank(fuelAmount=%d)", g)
		}},
		{"set_navigation", func(r *rand.Rand, _ *convo) (string, string) {
			d := fmt.Sprintf("%d %s Street", 1+r.Intn(9), pick(r, streets))
			return fmt.Sprintf("Navigate to %s.", d), fmt.Sprintf("set_navigation(destination='%s')", d)
		}},
		{"pressBrakePedal", func(r *rand.Rand, _ *convo) (string, string) {
			p := fmt.Sprintf("0.%d", 1+r.Intn(9))
			return fmt.Sprintf("Press the brake pedal to %s.", p), fmt.Sprintf("pressBrakePedal(pedalPosition=%s)", p)
		}},
		{"displayCarStatus", func(r *rand.Rand, _ *convo) (string, string) {
			o := pick(r, options)
			return fmt.Sprintf("Show the %s status of the car.", o), fmt.Sprintf("displayCarStatus(option='%s')", o)
		}},
	}},
	{class: "TradingBot", steps: []step{
		{"get_stock_info", func(r *rand.Rand, _ *convo) (string, string) {
			s := pick(r, symbols)
			return fmt.Sprintf("Show the price figures of %s.", s), fmt.Sprintf("get_stock_info(symbol='%s')", s)
		}},
		{"get_symbol_by_name", func(r *rand.Rand, _ *convo) (string, string) {
			n := pick(r, company)
			return fmt.Sprintf("Find the ticker symbol of %s.", n), fmt.Sprintf("get_symbol_by_name(name='%s')", n)
		}},
	}},
	{class: "GorillaFileSystem", steps: []step{
		{"mkdir", func(r *rand.Rand, _ *convo) (string, string) {
			n := fmt.Sprintf("%s%d", pick(r, words), r.Intn(10))
			return fmt.Sprintf("Create a folder named %s.", n), fmt.Sprintf("mkdir(dir_name='%s')", n)
		}},
		{"touch", func(r *rand.Rand, _ *convo) (string, string) {
			n := fmt.Sprintf("%s%d.txt", pick(r, words), r.Intn(10))
			return fmt.Sprintf("Create an empty file called %s.", n), fmt.Sprintf("touch(file_name='%s')", n)
		}},
		{"echo", func(r *rand.Rand, _ *convo) (string, string) {
			n, t := fmt.Sprintf("%s%d.txt", pick(r, words), r.Intn(10)), pick(r, messages)
			return fmt.Sprintf("Write '%s' into %s.", t, n), fmt.Sprintf("echo(content='%s', file_name='%s')", t, n)
		}},
	}},
	{class: "MessageAPI",
		login: &step{"message_login", func(r *rand.Rand, c *convo) (string, string) {
			return fmt.Sprintf("Log in as user %s.", c.user), fmt.Sprintf("message_login(user_id='%s')", c.user)
		}},
		config: func(r *rand.Rand, c *convo) *bfcl.Dict { c.user = pick(r, userIDs); return nil },
		steps: []step{
			{"send_message", func(r *rand.Rand, c *convo) (string, string) {
				to, m := pick(r, userIDs), pick(r, messages)
				return fmt.Sprintf("Send '%s' to %s.", m, to), fmt.Sprintf("send_message(receiver_id='%s', message='%s')", to, m)
			}},
		}},
	{class: "TwitterAPI",
		login: &step{"authenticate_twitter", func(r *rand.Rand, c *convo) (string, string) {
			return fmt.Sprintf("Log in to Twitter as %s with password %s.", c.user, c.password),
				fmt.Sprintf("authenticate_twitter(username='%s', password='%s')", c.user, c.password)
		}},
		config: func(r *rand.Rand, c *convo) *bfcl.Dict {
			c.user = pick(r, words)
			c.password = fmt.Sprintf("%s%d", pick(r, words), r.Intn(10))
			return bfcl.NewDict("username", c.user, "password", c.password)
		},
		steps: []step{
			{"post_tweet", func(r *rand.Rand, _ *convo) (string, string) {
				m := pick(r, messages)
				return fmt.Sprintf("Post a tweet saying '%s'.", m), fmt.Sprintf("post_tweet(content='%s')", m)
			}},
			{"follow_user", func(r *rand.Rand, _ *convo) (string, string) {
				u := fmt.Sprintf("%s%d", pick(r, words), r.Intn(10))
				return fmt.Sprintf("Follow the user %s.", u), fmt.Sprintf("follow_user(username_to_follow='%s')", u)
			}},
		}},
}
