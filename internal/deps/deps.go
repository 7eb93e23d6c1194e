//go:build tools

// Package deps pins the chosen dependency set while the packages that use
// them are being written. It never builds into the binary.
package deps

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/elastic/go-seccomp-bpf"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/landlock-lsm/go-landlock/landlock"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/sys/unix"
	_ "mvdan.cc/sh/v3/syntax"
)
