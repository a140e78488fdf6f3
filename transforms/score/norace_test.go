//go:build !race

package score

const raceEnabled = false
