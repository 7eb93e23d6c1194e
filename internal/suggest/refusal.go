package suggest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// What a refusal was of.
const (
	KindPath    = "path"
	KindHost    = "host"
	KindCommand = "command"
)

// Refusal is one thing a run or a call was refused, as read from its
// record: a path (and the access the operation needed), a host (and
// port) or a command line.
type Refusal struct {
	Kind string
	// Path is a host path, or (Model) a model path: under Input.MountPath
	// it is mapped onto the root. A relative path is taken from Input.Cwd.
	Path  string
	Model bool
	// Need is the access the operation needed; policy.Deny when the record
	// does not say (Plan then proposes one step up from what the file grants).
	Need policy.Access
	// Host and Port name a refused connection; Private is set when the
	// proxy refused it as a private address (loopback, link-local, …).
	Host    string
	Port    int
	Private bool
	// Argv is the refused command (a shell line is ["sh", "-c", line]).
	Argv []string
	// Why is the record's own reason, for the person.
	Why string
	// From names the record: "run 1", "audit line 4".
	From string
}

// Skipped is a record that refused something this package does not turn
// into a policy change, and why.
type Skipped struct {
	From, What, Why string
}

// maxInput bounds what Read accepts: a run's JSON is small, an audit
// trail of a long session a few MiB.
const maxInput = 64 << 20

// maxRefusals bounds the refusals kept: a loop that hit the same wall a
// million times is one change, and deduplication keeps the list short.
const maxRefusals = 256

// Read reads the records on r: `ringfence run --json` results (one or more
// JSON objects) or an audit trail (JSON lines with "tool"), told apart by
// the first object. Records that refused nothing give nothing; a record
// that does not decode is an error naming it.
func Read(r io.Reader) ([]Refusal, []Skipped, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > maxInput {
		return nil, nil, errors.New("input larger than 64 MiB")
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, nil, errors.New("no input: pipe `ringfence run --json` output or an audit trail (ringfence mcp --audit FILE)")
	}
	if trimmed[0] != '{' {
		return nil, nil, errors.New("input is not JSON: want `ringfence run --json` output or an audit trail")
	}
	var probe struct {
		Tool *string `json:"tool"`
	}
	if err := json.NewDecoder(bytes.NewReader(trimmed)).Decode(&probe); err != nil {
		return nil, nil, fmt.Errorf("record 1: %w", err)
	}
	var c collector
	if probe.Tool != nil {
		recs, err := audit.Read(bytes.NewReader(data), audit.Filter{})
		if err != nil {
			return nil, nil, err
		}
		for i, rec := range recs {
			c.audit(rec, "audit record "+strconv.Itoa(i+1))
		}
	} else {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for n := 1; ; n++ {
			var res runResult
			err := dec.Decode(&res)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, nil, fmt.Errorf("run result %d: %w", n, err)
			}
			if res.Kind == "" {
				return nil, nil, fmt.Errorf("run result %d: no \"kind\": not `ringfence run --json` output", n)
			}
			c.run(res, "run "+strconv.Itoa(n))
		}
	}
	return c.out, c.skipped, nil
}

// runResult is the part of `ringfence run --json` (ringfence.ExecResult)
// read here.
type runResult struct {
	Kind       string              `json:"kind"`
	Violations []outcome.Violation `json:"violations"`
	Network    []struct {
		Host    string `json:"host"`
		Port    int    `json:"port"`
		Verdict string `json:"verdict"`
		Reason  string `json:"reason"`
		Rule    string `json:"rule"`
	} `json:"network"`
}

// Proxy reasons (internal/netproxy's), as results carry them.
const (
	proxyAllowlist = "blocked-by-allowlist"
	proxyDenylist  = "blocked-by-denylist"
	proxyPrivate   = "private-address"
	proxyDeclined  = "declined-by-user"
)

type collector struct {
	out     []Refusal
	skipped []Skipped
	seen    map[string]bool
}

func (c *collector) add(r Refusal) {
	key := r.Kind + "\x00" + r.Path + "\x00" + r.Need.String() + "\x00" + r.Host + "\x00" + strconv.Itoa(r.Port) + "\x00" + strings.Join(r.Argv, "\x00")
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[key] || len(c.out) >= maxRefusals {
		return
	}
	c.seen[key] = true
	c.out = append(c.out, r)
}

func (c *collector) skip(from, what, why string) {
	for _, s := range c.skipped {
		if s == (Skipped{From: from, What: what, Why: why}) {
			return
		}
	}
	if len(c.skipped) < maxRefusals {
		c.skipped = append(c.skipped, Skipped{From: from, What: what, Why: why})
	}
}

func (c *collector) run(res runResult, from string) {
	c.violations(res.Violations, from)
	for _, d := range res.Network {
		if d.Verdict == "allow" {
			continue
		}
		c.host(d.Host, d.Port, d.Reason, d.Rule, from)
	}
}

func (c *collector) host(host string, port int, reason, rule, from string) {
	what := host
	if port > 0 {
		what += ":" + strconv.Itoa(port)
	}
	switch reason {
	case proxyAllowlist, proxyPrivate:
		c.add(Refusal{Kind: KindHost, Host: host, Port: port, Private: reason == proxyPrivate, Why: reason, From: from})
	case proxyDenylist:
		by := "a deny rule"
		if rule != "" {
			by = "the deny rule " + strconv.Quote(rule)
		}
		c.skip(from, what, "refused by "+by+": deny always wins; remove that rule by hand if you mean it")
	case proxyDeclined:
		c.skip(from, what, "a person declined it")
	default:
		c.skip(from, what, "refused for "+reason+", which no policy change allows")
	}
}

func (c *collector) violations(vs []outcome.Violation, from string) {
	for _, v := range vs {
		switch {
		case v.Reason == outcome.ReasonProxy:
			// "host:port reason": the proxy's refusal as the result and the
			// audit trail record it (the trail has no proxy log).
			target, reason, _ := strings.Cut(v.Snippet, " ")
			host, port := splitTarget(target)
			c.host(host, port, reason, "", from)
		case v.Path != "":
			need := policy.Deny // unknown: one step up from the file's access
			if v.Reason == outcome.ReasonReadOnly {
				need = policy.Write
			}
			c.add(Refusal{Kind: KindPath, Path: v.Path, Need: need, Why: v.Reason, From: from})
		case v.Target != "":
			host, port := splitTarget(v.Target)
			c.add(Refusal{Kind: KindHost, Host: host, Port: port, Why: "network off", From: from})
		default:
			c.skip(from, oneLine(v.Snippet), "the refusal names no path or host")
		}
	}
}

// splitTarget separates a violation's "host:port", "[v6]:port" or bare
// host.
func splitTarget(t string) (string, int) {
	host, port := t, ""
	switch {
	case strings.HasPrefix(t, "["):
		if end := strings.IndexByte(t, ']'); end > 0 {
			host, port = t[1:end], strings.TrimPrefix(t[end+1:], ":")
		}
	case strings.Count(t, ":") == 1:
		host, port, _ = strings.Cut(t, ":")
	}
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p > 65535 {
		p = 0
	}
	return host, p
}

// Tools whose refusal is of a read, and of a write.
var readTools = map[string]bool{"read_file": true, "list_files": true, "glob_files": true, "grep_files": true, "read_media": true}
var writeTools = map[string]bool{"write_file": true, "edit_file": true}

func (c *collector) audit(r audit.Record, from string) {
	n := len(c.out)
	c.violations(r.Violations, from)
	for i := n; i < len(c.out); i++ {
		c.out[i].Model = true // the server scrubbed the root to its mount path
	}
	kind := outcome.Kind(r.Outcome)
	switch {
	case kind == outcome.GateDeclined:
		c.skip(from, r.Tool+" "+audit.Summary(r.Args), "a person declined it")
	case (r.Tool == "run_command" || r.Tool == "run_code") && (kind == outcome.DeniedByPolicy || kind == outcome.GateUnavailable):
		argv := commandOf(r.Args)
		if argv == nil {
			c.skip(from, r.Tool, "the trail holds no command line")
			return
		}
		c.add(Refusal{Kind: KindCommand, Argv: argv, Why: r.Capability + ": " + r.Classified, From: from})
	case r.Path != "" && (kind == outcome.DeniedByPolicy || kind == outcome.OutsideWriteRoot):
		need := policy.Write
		if readTools[r.Tool] {
			need = policy.Read
		} else if !writeTools[r.Tool] && kind == outcome.DeniedByPolicy {
			need = policy.Deny
		}
		c.add(Refusal{Kind: KindPath, Path: r.Path, Model: true, Need: need, Why: string(kind), From: from})
	}
}

// commandOf is the recorded command: "command" (a shell line, run as
// sh -c) or "argv". A line cut by the trail (MaxText) is not a command.
func commandOf(args map[string]any) []string {
	if s, ok := args["command"].(string); ok && s != "" {
		if strings.Contains(s, "…[") && strings.HasSuffix(s, " more bytes]") {
			return nil
		}
		return []string{"sh", "-c", s}
	}
	list, ok := args["argv"].([]any)
	if !ok || len(list) == 0 {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok || strings.HasPrefix(s, "…[") {
			return nil
		}
		out = append(out, s)
	}
	return out
}

func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}
