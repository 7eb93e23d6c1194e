package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version and the VCS revision come from the build info.
var version = ""

// versionString is what `ringfence version` and `--version` print first.
func versionString() string {
	info, _ := debug.ReadBuildInfo()
	return versionFrom(version, info)
}

// versionFrom decides the version text from what the build recorded:
//   - an -ldflags version wins (a release build says what it is);
//   - `go install …@v1.2.3` records the module version; a pseudo-version
//     (v0.0.0-20261201…-abcdef123456) already names the commit;
//   - `go build` in a git checkout records "(devel)" as the module version
//     but vcs.revision, vcs.time and vcs.modified as settings: the commit
//     is the version then, "-dirty" when the tree had changes;
//   - "(devel)" only when nothing at all is known.
func versionFrom(ldflag string, info *debug.BuildInfo) string {
	if ldflag != "" {
		return ldflag
	}
	if info == nil {
		return "(devel)"
	}
	var rev, when string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := info.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	if rev == "" {
		return "(devel)"
	}
	v = "devel " + rev[:min(len(rev), 12)]
	if dirty {
		v += "-dirty"
	}
	if when != "" {
		v += " (" + when + ")"
	}
	return v
}

// versionLine is the whole line: the version, the platform, the Go release.
func versionLine() string {
	return fmt.Sprintf("ringfence %s %s/%s %s\n", versionString(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print ringfence's version (also: ringfence --version)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}

// setVersionFlag gives the root command --version (and -v), printing the
// same line as `ringfence version`.
func setVersionFlag(root *cobra.Command) {
	root.Version = versionString()
	root.SetVersionTemplate(versionLine())
}
