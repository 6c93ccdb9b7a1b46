package taubench_test

import (
	"context"
	"fmt"

	"github.com/artist-rl/artist/envs/taubench"
	"github.com/artist-rl/artist/internal/pyval"
)

func ExampleCalculate() {
	for _, e := range []string{"2+2", "1/3", "10**20", "1/0", "2 % 3"} {
		out, err := taubench.Calculate(e)
		fmt.Printf("%s -> %q %v\n", e, out, err)
	}
	// Output:
	// 2+2 -> "4.0" <nil>
	// 1/3 -> "0.33" <nil>
	// 10**20 -> "1e+20" <nil>
	// 1/0 -> "" division by zero
	// 2 % 3 -> "" invalid characters in expression
}

func ExampleEpisode() {
	ctx := context.Background()
	d, err := taubench.Load("../../testdata/tau_bench/retail", taubench.Retail)
	if err != nil {
		panic(err)
	}
	task := taubench.Task{
		Instruction: "Cancel order #W0000003, you no longer need it.",
		Actions: []taubench.Action{{Name: "cancel_pending_order",
			Kwargs: pyval.NewDict("order_id", "#W0000003", "reason", "no longer needed")}},
	}
	user := &taubench.ScriptedUser{Utterances: []string{"Please cancel #W0000003.", "Yes."}}
	ep, first, _ := taubench.NewEpisode(ctx, d, task, user)
	fmt.Println("user:", first)
	for _, a := range []taubench.Action{
		{Name: taubench.Respond, Kwargs: pyval.NewDict("content", "Cancel #W0000003 as no longer needed?")},
		{Name: "cancel_pending_order", Kwargs: pyval.NewDict("order_id", "#W0000003", "reason", "no longer needed")},
		{Name: taubench.Respond, Kwargs: pyval.NewDict("content", "It is cancelled.")},
	} {
		obs, done, _ := ep.Step(ctx, a)
		fmt.Printf("%s -> %.40s (done %v)\n", a.Name, obs, done)
	}
	gold, _ := taubench.GoldHash(d, task)
	fmt.Println("reward:", taubench.Reward(ep.Outcome(), gold, task.Outputs))
	// Output:
	// user: Please cancel #W0000003.
	// respond -> Yes. (done false)
	// cancel_pending_order -> {"order_id": "#W0000003", "user_id": "ca (done false)
	// respond -> ###STOP### (done true)
	// reward: 1
}

func ExampleDomain_ChatTools() {
	d, err := taubench.Load("../../testdata/tau_bench/airline", taubench.Airline)
	if err != nil {
		panic(err)
	}
	tools, err := d.ChatTools()
	if err != nil {
		panic(err)
	}
	fmt.Println(len(tools), tools[0].Type, tools[0].Function.Name, tools[1].Function.Name)
	// Output:
	// 14 function book_reservation calculate
}
