//go:build race

package run

// raceEnabled: the race detector shadows every allocation, which
// multiplies the RSS a bounded buffer costs.
const raceEnabled = true
