//go:build !linux

package initimage

import "github.com/ringfence/ringfence/internal/confine/initproc"

// Path is initproc.SelfExe: only Linux runs an init.
func Path() (string, error) { return initproc.SelfExe, nil }

// Describe says where the init is executed from, for doctor.
func Describe() string { return "the ringfence binary" }
