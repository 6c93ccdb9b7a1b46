//go:build race

package sandbox

// raceEnabled: workers built with the race detector reserve memory of
// their own and run several times slower, so limits are hit differently.
const raceEnabled = true
