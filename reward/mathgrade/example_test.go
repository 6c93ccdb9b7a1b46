package mathgrade_test

import (
	"fmt"

	"github.com/artist-rl/artist/reward/mathgrade"
)

func ExampleEqual() {
	fmt.Println(mathgrade.Equal(`$\frac{3}{4}$`, "0.75"), mathgrade.Equal("1,234", "1234"), mathgrade.Equal("1/3", "0.333"))
	// Output: true true false
}
