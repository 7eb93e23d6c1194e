package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// colorMode is --color's value: auto (the default), always or never.
// Setting anything else is a usage error at parse time.
type colorMode string

func (m *colorMode) String() string {
	if *m == "" {
		return "auto"
	}
	return string(*m)
}

func (m *colorMode) Set(v string) error {
	switch v {
	case "auto", "always", "never":
		*m = colorMode(v)
		return nil
	}
	return fmt.Errorf("want auto, always or never, not %q", v)
}

func (m *colorMode) Type() string { return "WHEN" }

// colorValues are --color's values, for completion and help.
var colorValues = []string{"auto", "always", "never"}

// useColor decides whether ringfence's own words on a stream are coloured:
// always and never are the person's explicit choice and win over the
// environment (as NO_COLOR's convention asks of an explicit flag); auto
// colours only a terminal, and never when NO_COLOR is set to anything
// non-empty or TERM is "dumb". The command's own output is never touched.
func useColor(mode colorMode, noColor, term string, tty bool) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return tty && noColor == "" && term != "dumb"
}

// colorFlag adds --color to the root, inherited by every subcommand.
func colorFlag(root *cobra.Command) {
	m := new(colorMode)
	root.PersistentFlags().Var(m, "color", "colour ringfence's own notes and errors: auto (on a terminal, unless NO_COLOR is set), always or never")
}

// colorOn reports whether cmd's ringfence-written text on w is coloured.
func colorOn(cmd *cobra.Command, w io.Writer) bool {
	mode := colorMode("auto")
	if f := cmd.Root().PersistentFlags().Lookup("color"); f != nil {
		mode = colorMode(f.Value.String())
	}
	f, ok := w.(*os.File)
	return useColor(mode, os.Getenv("NO_COLOR"), os.Getenv("TERM"), ok && isTerminal(f))
}

// SGR sequences for ringfence's two prefixes; the text after them is plain.
const (
	sgrNote  = "\x1b[1;33m" // bold yellow: a note about what the sandbox did
	sgrError = "\x1b[1;31m" // bold red: ringfence itself refused or failed
	sgrReset = "\x1b[0m"
)

// paint wraps s in sgr when on.
func paint(on bool, sgr, s string) string {
	if !on {
		return s
	}
	return sgr + s + sgrReset
}
