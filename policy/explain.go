package policy

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Explanation is a resolved policy laid out for a person (Text) or a tool
// (JSON): what the mode, network and limits are, every layer, what ends up
// writable and unreadable, and the access at each path asked about.
type Explanation struct {
	Mode          string       `json:"mode"`
	Root          string       `json:"root"`
	Baseline      Access       `json:"baseline"`
	Network       Network      `json:"network"`
	Limits        LimitsText   `json:"limits"`
	Layers        []Layer      `json:"layers"`
	WritableRoots RootSet      `json:"writableRoots"`
	Unreadable    []string     `json:"unreadable"`
	Paths         []PathAccess `json:"paths"`
}

// LimitsText is Limits in the units a policy file uses; "" is unlimited.
type LimitsText struct {
	WallClock string `json:"wallClock,omitempty"`
	Memory    string `json:"memory,omitempty"`
	Processes string `json:"processes,omitempty"`
	CPUTime   string `json:"cpuTime,omitempty"`
}

// PathAccess is the access at one path and the layer that decided it (nil:
// the baseline).
type PathAccess struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	Layer  *Layer `json:"layer"`
}

// Explain lays p out, with the access at each of paths; a relative path is
// taken relative to the root.
func Explain(p *Policy, paths []string) Explanation {
	e := Explanation{
		Mode:          p.Mode.String(),
		Root:          p.Root,
		Baseline:      p.Baseline,
		Network:       p.Network,
		Limits:        limitsText(p.Limits),
		Layers:        nonNil(p.Layers),
		WritableRoots: p.WritableRoots(),
		Unreadable:    nonNil(p.UnreadablePaths()),
		Paths:         []PathAccess{},
	}
	e.WritableRoots.Roots, e.WritableRoots.Denied = nonNil(e.WritableRoots.Roots), nonNil(e.WritableRoots.Denied)
	for _, path := range paths {
		if !strings.HasPrefix(path, "/") {
			path = join(p.Root, path)
		}
		path = Clean(path)
		e.Paths = append(e.Paths, PathAccess{Path: path, Access: p.AccessAt(path), Layer: p.decidingLayer(path)})
	}
	return e
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// decidingLayer is the layer AccessAt takes its answer from, or nil.
func (p *Policy) decidingLayer(path string) *Layer {
	var found *Layer
	for i := range p.Layers {
		if Contains(p.Layers[i].Path, path) {
			l := p.Layers[i]
			found = &l
		}
	}
	return found
}

func limitsText(l Limits) LimitsText {
	var t LimitsText
	if l.WallClock > 0 {
		t.WallClock = l.WallClock.String()
	}
	if l.MemoryBytes > 0 {
		t.Memory = FormatSize(l.MemoryBytes)
	}
	if l.Processes > 0 {
		t.Processes = strconv.Itoa(l.Processes)
	}
	if l.CPUTime > 0 {
		t.CPUTime = l.CPUTime.String()
	}
	return t
}

// Text renders the explanation as aligned tables.
func (e Explanation) Text() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "mode\t%s\n", e.Mode)
	fmt.Fprintf(w, "root\t%s\n", e.Root)
	fmt.Fprintf(w, "baseline\t%s\n", e.Baseline)
	fmt.Fprintf(w, "network\t%s\n", networkText(e.Network))
	fmt.Fprintf(w, "limits\t%s\n", e.Limits.text())
	w.Flush()
	b.WriteString("\nlayers (broadest first; the deepest containing a path decides):\n")
	w = tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  ACCESS\tORIGIN\tPATH")
	for _, l := range e.Layers {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", l.Access, l.Origin, l.Path)
	}
	w.Flush()
	if len(e.Layers) == 0 {
		b.WriteString("  (none)\n")
	}
	b.WriteString("\nwritable roots:" + listText(e.WritableRoots.Roots))
	b.WriteString("not writable inside them:" + listText(e.WritableRoots.Denied))
	b.WriteString("unreadable:" + listText(e.Unreadable))
	if len(e.Paths) > 0 {
		b.WriteString("\npaths:\n")
		w = tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "  ACCESS\tPATH\tDECIDED BY")
		for _, p := range e.Paths {
			by := "baseline"
			if p.Layer != nil {
				by = p.Layer.Origin.String() + " " + p.Layer.Path
			}
			fmt.Fprintf(w, "  %s\t%s\t%s\n", p.Access, p.Path, by)
		}
		w.Flush()
	}
	return b.String()
}

func networkText(n Network) string {
	if n.Mode == NetDomains {
		s := n.Mode.String() + " (" + strings.Join(n.Domains, ", ") + ")"
		if len(n.Deny) > 0 {
			s += ", except (" + strings.Join(n.Deny, ", ") + ")"
		}
		if n.Ask {
			s += ", others asked"
		}
		return s
	}
	return n.Mode.String()
}

// listText is " (none)\n" or one indented line per item.
func listText(s []string) string {
	if len(s) == 0 {
		return " (none)\n"
	}
	return "\n  " + strings.Join(s, "\n  ") + "\n"
}

func (t LimitsText) text() string {
	or := func(s string) string {
		if s == "" {
			return "unlimited"
		}
		return s
	}
	return "wall-clock " + or(t.WallClock) + ", memory " + or(t.Memory) +
		", processes " + or(t.Processes) + ", cpu " + or(t.CPUTime)
}

// Summary is the policy in one line, for audit records: mode, network,
// baseline, how many roots are writable and how many subtrees re-denied.
func (p *Policy) Summary() string {
	rs := p.WritableRoots()
	s := fmt.Sprintf("mode=%s network=%s baseline=%s write-roots=%d re-denied=%d",
		p.Mode, p.Network.Mode, p.Baseline, len(rs.Roots), len(rs.Denied))
	if p.Limits.WallClock > 0 {
		s += " wall-clock=" + p.Limits.WallClock.Round(time.Millisecond).String()
	}
	return s
}
