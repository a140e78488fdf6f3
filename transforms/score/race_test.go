//go:build race

package score

// raceEnabled shrinks the fits of the tests that only exercise concurrency.
const raceEnabled = true
