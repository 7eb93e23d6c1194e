//go:build !linux

package main

import "os"

// isTerminal reports false off Linux: commands run nowhere else, so no new
// terminal is ever opened for one.
func isTerminal(*os.File) bool { return false }
