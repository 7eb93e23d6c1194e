package coderun

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
)

// ManifestEntry is one input as inputs/manifest.json lists it.
type ManifestEntry struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Manifest is the content of inputs/manifest.json.
type Manifest struct {
	Inputs []ManifestEntry `json:"inputs"`
}

// staged is one input ready to be written under inputs/.
type staged struct {
	name string
	data []byte
}

// maxSegmentBytes is the longest name component a Linux filesystem takes.
const maxSegmentBytes = 255

// CheckNames applies the input-name rules, before anything is read or
// written: at most maxInputs inputs, each name a model path (pathrule:
// relative, no escape; subdirectories allowed), valid UTF-8 (the manifest
// is JSON), bounded in length, not
// the manifest's own name, not given twice, and no name a directory of
// another. It returns the clean names, in order.
func CheckNames(inputs []Input, maxInputs int) ([]string, error) {
	if len(inputs) > maxInputs {
		return nil, refuse(outcome.Outcome{Kind: outcome.OverBudget, Bound: "inputs", Limit: int64(maxInputs), Observed: int64(len(inputs))})
	}
	names := make([]string, len(inputs))
	seen := make(map[string]bool, len(inputs))
	for i, in := range inputs {
		name, err := checkName(in.Name)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, invalid(fmt.Sprintf("input %d repeats the name of an earlier input", i))
		}
		seen[name] = true
		names[i] = name
	}
	for i, name := range names {
		for dir := parentOf(name); dir != ""; dir = parentOf(dir) {
			if seen[dir] {
				return nil, invalid(fmt.Sprintf("input %d is inside another input's name", i))
			}
		}
	}
	return names, nil
}

func checkName(raw string) (string, error) {
	if len(raw) > MaxNameBytes {
		return "", invalid(fmt.Sprintf("an input name is over %d bytes", MaxNameBytes))
	}
	if !utf8.ValidString(raw) {
		// The manifest is JSON: a name that is not UTF-8 would be listed
		// under another name than the file's.
		return "", invalid("an input name is not valid UTF-8")
	}
	name, err := pathrule.Clean(raw)
	if err != nil {
		reason := "invalid"
		var pe *pathrule.Error
		if errors.As(err, &pe) {
			reason = string(pe.Reason)
		}
		return "", refuse(outcome.Outcome{Kind: outcome.PathRejected, Path: bounded(raw), Reason: reason})
	}
	for _, seg := range strings.Split(name, "/") {
		if len(seg) > maxSegmentBytes {
			return "", invalid(fmt.Sprintf("an input name has a component over %d bytes", maxSegmentBytes))
		}
	}
	if name == ManifestName {
		return "", invalid("the input name " + ManifestName + " is reserved for the manifest")
	}
	return name, nil
}

func parentOf(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return ""
	}
	return name[:i]
}

// bounded cuts a model-supplied name before it goes into an outcome.
func bounded(s string) string {
	const max = 256
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// gather collects the bytes of every input within maxBytes in total:
// given content first (no read is spent on a call that is over budget
// anyway), then workspace files, each read through the workspace fence
// with the budget left as its bound, so a denied or missing path keeps
// the workspace's own outcome and a large file is refused, not cut.
func gather(ws *workspace.Workspace, inputs []Input, names []string, maxBytes int64) ([]staged, error) {
	var total int64
	for i, in := range inputs {
		switch {
		case (in.Content != nil) == (in.FromWorkspace != ""):
			return nil, invalid(fmt.Sprintf("input %d must give exactly one of content and fromWorkspace", i))
		case in.Content != nil:
			total += int64(len(in.Content))
		}
	}
	if total > maxBytes {
		return nil, overInputs(maxBytes, total)
	}
	out := make([]staged, len(inputs))
	for i, in := range inputs {
		out[i].name = names[i]
		if in.Content != nil {
			out[i].data = in.Content
			continue
		}
		if maxBytes-total <= 0 {
			return nil, overInputs(maxBytes, total+1)
		}
		if ws == nil {
			return nil, refuse(outcome.Outcome{Kind: outcome.Unavailable, Detail: "no workspace to read inputs from"})
		}
		r, err := ws.ReadFile(in.FromWorkspace, workspace.ReadOptions{MaxBytes: maxBytes - total, Raw: true})
		if err != nil {
			return nil, workspaceRefusal(err, maxBytes)
		}
		out[i].data = r.Data
		total += int64(len(r.Data))
	}
	return out, nil
}

func overInputs(limit, seen int64) error {
	return refuse(outcome.Outcome{Kind: outcome.OverBudget, Bound: "input bytes", Limit: limit, Observed: seen})
}

// workspaceRefusal keeps the workspace's outcome of a refused read, the
// bound of an over-budget one being the call's input budget.
func workspaceRefusal(err error, limit int64) error {
	o, ok := outcome.Of(err)
	if !ok {
		return refuse(outcome.Outcome{Kind: outcome.IOFailure, Detail: "an input could not be read from the workspace"})
	}
	if o.Kind == outcome.OverBudget {
		o.Bound, o.Limit = "input bytes", limit
	}
	return refuse(o)
}

// BuildManifest is the manifest of the staged files, in the caller's
// order, and its JSON.
func buildManifest(files []staged) (Manifest, []byte) {
	m := Manifest{Inputs: make([]ManifestEntry, len(files))}
	for i, f := range files {
		sum := sha256.Sum256(f.data)
		m.Inputs[i] = ManifestEntry{Name: f.name, Size: int64(len(f.data)), SHA256: hex.EncodeToString(sum[:])}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		panic("coderun: manifest does not marshal: " + err.Error())
	}
	return m, append(b, '\n')
}
