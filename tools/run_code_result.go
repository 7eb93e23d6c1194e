package tools

import (
	"strconv"
	"strings"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/coderun"
)

// CodeResult is run_code's structured result (Result.Data): the command's
// result in model paths, and what outputs/ held. Artifacts is null when
// outputs were not collected (the code never ran) and [] when outputs/
// was empty.
type CodeResult struct {
	Exec               *ringfence.ExecResult   `json:"exec"`
	Interpreter        string                  `json:"interpreter"`
	Inputs             []coderun.ManifestEntry `json:"inputs"`
	Artifacts          []coderun.Artifact      `json:"artifacts"`
	ArtifactsCollected bool                    `json:"artifacts_collected"`
	ArtifactsCut       bool                    `json:"artifacts_cut,omitempty"`
	OmittedArtifacts   int                     `json:"omitted_artifacts,omitempty"`
}

// codeResult is run_command's view of the run (exit, stdout, stderr, the
// outcome) followed by the outputs.
func (s *Set) codeResult(res *coderun.Result, audit AuditInfo) Result {
	r := s.execResult(res.Exec, audit)
	data := &CodeResult{
		Exec: r.Data.(*ringfence.ExecResult), Interpreter: res.Interpreter, Inputs: res.Inputs,
		Artifacts: res.Artifacts, ArtifactsCollected: res.ArtifactsCollected,
		ArtifactsCut: res.ArtifactsCut, OmittedArtifacts: res.OmittedArtifacts,
	}
	r.Data = data
	r.Text = joinText(r.Text, s.artifactsText(res))
	r.Media = firstImage(res.Artifacts, s.opts.MaxMediaBytes)
	return r
}

// artifactsText lists every artifact, then the text of the small text
// ones, each cut like a stream, up to four streams' worth in all.
func (s *Set) artifactsText(res *coderun.Result) string {
	if !res.ArtifactsCollected {
		return "--- outputs: not collected (the code did not run) ---"
	}
	if len(res.Artifacts) == 0 {
		return "--- outputs: none (nothing was written to $" + coderun.EnvOutputDir + ") ---"
	}
	var b strings.Builder
	b.WriteString("--- outputs (" + plural(int64(len(res.Artifacts)), "entry", "entries") + ") ---")
	for _, a := range res.Artifacts {
		b.WriteString("\n" + artifactLine(a))
	}
	if res.ArtifactsCut {
		b.WriteString("\n[outputs/ held more than the runner collects")
		if res.OmittedArtifacts > 0 {
			b.WriteString("; " + plural(int64(res.OmittedArtifacts), "entry was", "entries were") + " not listed")
		}
		b.WriteString("]")
	}
	text, budget := b.String(), 4*s.opts.MaxOutputBytes
	for _, a := range res.Artifacts {
		if a.Content == nil || !coderun.IsText(a.MIME, a.Content) || budget <= 0 {
			continue
		}
		shown, omitted := cutMiddle(string(a.Content), min(s.opts.MaxOutputBytes, budget))
		budget -= len(shown)
		head := "--- " + quoteShort(a.Name) + " (" + plural(a.Size, "byte", "bytes")
		if omitted > 0 {
			head += ", " + strconv.Itoa(omitted) + " omitted here"
		}
		text = joinText(text, head+") ---\n"+shown)
	}
	return text
}

func artifactLine(a coderun.Artifact) string {
	line := quoteShort(a.Name)
	if a.Refused == coderun.RefusedSymlink || a.Refused == coderun.RefusedSpecial {
		return line + ": refused (" + a.Refused + "; never followed or read)"
	}
	if a.Refused != "" && a.SHA256 == "" {
		line += " " + plural(a.Size, "byte", "bytes")
		return line + ": refused (" + a.Refused + detail(a.Detail) + ")"
	}
	line += " " + plural(a.Size, "byte", "bytes") + ", " + a.MIME + ", sha256 " + a.SHA256
	switch {
	case a.SavedTo != "":
		line += ": saved to " + a.SavedTo
	case a.Refused != "":
		line += ": refused (" + a.Refused + detail(a.Detail) + ")"
	case a.Content != nil && !coderun.IsText(a.MIME, a.Content):
		line += ": binary, returned in the structured result"
	}
	return line
}

func detail(d string) string {
	if d == "" {
		return ""
	}
	return ": " + d
}

// firstImage is the first inline image artifact, shown as media.
func firstImage(arts []coderun.Artifact, max int64) *Media {
	for _, a := range arts {
		if a.Content != nil && strings.HasPrefix(a.MIME, "image/") && a.MIME != "image/svg+xml" && int64(len(a.Content)) <= max {
			return &Media{MIME: a.MIME, Data: a.Content}
		}
	}
	return nil
}
