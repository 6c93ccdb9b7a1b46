package fcsynth_test

import (
	"fmt"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/envs/fcsynth"
)

// A generated conversation: the prompt offers three functions and asks
// for one call per turn; the ground truth copies the user's values.
func ExampleGenerator_Generate() {
	d, err := bfcl.Load("../../testdata/bfcl_v3")
	if err != nil {
		panic(err)
	}
	g, err := fcsynth.NewGenerator(d, fcsynth.Options{MaxTurns: 3, Functions: 3, Docs: bfcl.DocsSignatures})
	if err != nil {
		panic(err)
	}
	entries, tasks, err := g.Generate(1, 1, "demo", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(tasks[0].Prompt)
	for _, turn := range tasks[0].Turns {
		fmt.Println("next turn:", turn)
	}
	fmt.Println("ground truth:", entries[0].GroundTruth)
	// Output:
	// Functions:
	// post_tweet(content: str, tags: list[str] = [], mentions: list[str] = []) - Post a tweet as the logged-in user.
	// get_tweet(tweet_id: int) - Fetch one tweet by id.
	// authenticate_twitter(username: str, password: str) - Log in with a username and password.
	//
	// Log in to Twitter as echo with password zulu9.
	// next turn: Post a tweet saying 'see you soon'.
	// ground truth: [[authenticate_twitter(username='echo', password='zulu9')] [post_tweet(content='see you soon')]]
}
