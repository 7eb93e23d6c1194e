package audit

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
)

// summaryWidth bounds the arguments column of the table.
const summaryWidth = 60

// Table writes records as a table a person reads: time, session, tool,
// arguments, classification, gate, backend, outcome, duration. Every cell
// is made printable first: a model-authored argument cannot move the
// cursor, clear the screen or forge a row on the auditor's terminal.
func Table(w io.Writer, recs []Record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tSESSION\tTOOL\tARGUMENTS\tCLASS\tGATE\tBACKEND\tOUTCOME\tMS")
	for _, r := range recs {
		cells := []string{
			r.Time, r.Session, r.Tool, Summary(r.Args), class(r), dash(r.Gate),
			dash(r.Backend), outcomeCell(r), strconv.FormatFloat(r.DurationMS, 'f', 1, 64),
		}
		for i, c := range cells {
			cells[i] = printable(c)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// Summary is the arguments in one short line: the command or the path
// first, then the other names, contents as their size.
func Summary(args map[string]any) string {
	if len(args) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return rank(keys[i]) < rank(keys[j]) || rank(keys[i]) == rank(keys[j]) && keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+short(args[k]))
	}
	return clip(strings.Join(parts, " "), summaryWidth)
}

func rank(k string) int {
	switch k {
	case "command", "argv":
		return 0
	case "path", "pattern":
		return 1
	}
	return 2
}

func short(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []any:
		var s []string
		for _, e := range x {
			s = append(s, fmt.Sprint(e))
		}
		return strconv.Quote(strings.Join(s, " "))
	case []string:
		return strconv.Quote(strings.Join(x, " "))
	case map[string]any:
		if n, ok := x["bytes"]; ok {
			return fmt.Sprintf("<%vB>", n)
		}
	case Digest:
		return fmt.Sprintf("<%dB>", x.Bytes)
	}
	return fmt.Sprint(v)
}

func class(r Record) string {
	if r.Capability == "" && r.Classified == "" {
		return "-"
	}
	return r.Capability + "/" + r.Classified
}

func outcomeCell(r Record) string {
	s := r.Outcome
	if r.Reason != "" {
		s += "(" + r.Reason + ")"
	}
	if n := len(r.Violations); n > 0 {
		s += fmt.Sprintf(" [%d violations]", n)
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// printable replaces every control character (escape sequences, tabs,
// newlines, bidi overrides) with its Go escape.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
