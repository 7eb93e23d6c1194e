//go:build !linux

package bwrap_test

// attack has nothing to attack off Linux.
func attack([]string) int { return 2 }

func pid1Attack([]string) int { return 2 }

func stand([]string) int { return 2 }
