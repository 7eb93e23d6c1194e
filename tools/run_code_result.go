package tools

import (
	"strings"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/coderun"
	"github.com/ringfence/ringfence/outcome"
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
	r.Text = outcome.JoinText(r.Text, s.artifactsText(res))
	r.Media = firstImage(res.Artifacts, s.opts.MaxMediaBytes)
	return r
}

// artifactsText is the outputs/ listing (outcome.Outputs words it).
func (s *Set) artifactsText(res *coderun.Result) string {
	out := outcome.Outputs{Collected: res.ArtifactsCollected, Cut: res.ArtifactsCut, Omitted: res.OmittedArtifacts, Env: coderun.EnvOutputDir}
	for _, a := range res.Artifacts {
		out.Artifacts = append(out.Artifacts, outcome.Artifact{
			Name: a.Name, Size: a.Size, MIME: a.MIME, SHA256: a.SHA256, SavedTo: a.SavedTo, Refused: a.Refused, Detail: a.Detail,
			Unread:  a.Refused == coderun.RefusedSymlink || a.Refused == coderun.RefusedSpecial,
			Content: a.Content, Text: a.Content != nil && coderun.IsText(a.MIME, a.Content),
		})
	}
	return out.Text(s.opts.MaxOutputBytes)
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
