package evalbench_test

import (
	"fmt"

	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/reward/mathgrade"
)

func ExamplePassAtK() {
	// 5 samples, 2 of them right: the chance that 2 drawn without
	// replacement hold a right one.
	fmt.Printf("%.2f\n", evalbench.PassAtK(5, 2, 2))
	ans, votes := evalbench.Majority([]string{"0.5", "3", `\frac{1}{2}`}, mathgrade.Equal)
	fmt.Println(ans, votes)
	// Output:
	// 0.70
	// 0.5 2
}
