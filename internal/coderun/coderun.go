package coderun

import (
	"time"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Language is a language the runner knows how to start.
type Language struct {
	Name    string // python, javascript, bash, sh
	Program string // the interpreter looked up on the command PATH
	Script  string // the file the code is written to, in the call dir
}

// Languages are the languages Run accepts, by name.
var Languages = map[string]Language{
	"python":     {"python", "python3", "main.py"},
	"javascript": {"javascript", "node", "main.js"},
	"bash":       {"bash", "bash", "main.sh"},
	"sh":         {"sh", "sh", "main.sh"},
}

// LanguageNames lists the accepted language names, sorted.
var LanguageNames = []string{"bash", "javascript", "python", "sh"}

// The defaults of the Request bounds.
const (
	DefaultMaxInputs        = 64
	DefaultMaxInputBytes    = 16 << 20
	DefaultMaxInlineBytes   = 256 << 10
	DefaultMaxArtifactBytes = 16 << 20
	DefaultMaxArtifacts     = 64
	DefaultMaxCollectBytes  = 64 << 20
	DefaultSaveLargeTo      = "outputs"
	// MaxNameBytes bounds one input or artifact name.
	MaxNameBytes = 1024
)

// The names the runner gives inside a call directory, and the variables
// the command gets to find them.
const (
	InputsDir    = "inputs"
	OutputsDir   = "outputs"
	ManifestName = "manifest.json"
	EnvOutputDir = "RINGFENCE_OUTPUT_DIR"
	EnvInputDir  = "RINGFENCE_INPUT_DIR"
)

// Input is one file staged read-only under inputs/ before the code runs:
// Content (bytes given by the caller), or FromWorkspace (a model path read
// through the workspace's policy fence, so a denied path stays denied).
// Exactly one of them.
type Input struct {
	Name          string
	Content       []byte
	FromWorkspace string
}

// Request is one snippet to run.
type Request struct {
	Language string // a key of Languages
	Code     string
	Inputs   []Input
	// Timeout stops the whole process tree; zero is the sandbox default.
	Timeout time.Duration
	// InWorkspace starts the code in the workspace root instead of its
	// fresh call directory; inputs/ and outputs/ are still in the call
	// directory (RINGFENCE_INPUT_DIR, RINGFENCE_OUTPUT_DIR).
	InWorkspace bool
	// Policy is the base request of the run (session, approval); the
	// runner adds its read-only restrictions to its entries.
	Policy policy.Request
	// Bounds; zero takes the defaults above.
	MaxInputs        int
	MaxInputBytes    int64 // all inputs together
	MaxInlineBytes   int64 // largest artifact carried in the result
	MaxArtifactBytes int64 // largest artifact saved into the workspace
	MaxArtifacts     int   // entries of outputs/ reported
	MaxCollectBytes  int64 // bytes read from outputs/ in total
	// SaveLargeTo is the workspace directory (a model path) where an
	// artifact over MaxInlineBytes is saved, under a per-call directory.
	SaveLargeTo string
	// Env is added to the command's allow-listed environment.
	Env map[string]string
}

// The reasons an artifact is refused.
const (
	RefusedSymlink      = "symlink"
	RefusedSpecial      = "special-file"
	RefusedOverBudget   = "over-budget"
	RefusedNotCollected = "not-collected"
)

// Artifact is one entry of outputs/ after the run.
type Artifact struct {
	Name    string `json:"name"` // relative to outputs/
	Size    int64  `json:"size"`
	MIME    string `json:"mime,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	Content []byte `json:"content,omitempty"` // inline, when within MaxInlineBytes
	SavedTo string `json:"savedTo,omitempty"` // the model path it was saved to
	Refused string `json:"refused,omitempty"` // why it was neither returned nor saved
	// Detail says more about a refusal (the bound, the write outcome).
	Detail string `json:"detail,omitempty"`
}

// Result is what one run did.
type Result struct {
	Exec *sandbox.ExecResult `json:"exec"`
	// Artifacts is nil when outputs were not collected (the run never
	// started) and empty when outputs/ held nothing: the two differ.
	Artifacts          []Artifact `json:"artifacts"`
	ArtifactsCollected bool       `json:"artifactsCollected"`
	// ArtifactsCut is true when outputs/ held more than MaxArtifacts
	// entries or MaxCollectBytes; the rest are listed as not-collected up
	// to a bound, and the count of those not listed is OmittedArtifacts.
	ArtifactsCut     bool            `json:"artifactsCut,omitempty"`
	OmittedArtifacts int             `json:"omittedArtifacts,omitempty"`
	Interpreter      string          `json:"interpreter"` // the program, e.g. python3
	Inputs           []ManifestEntry `json:"inputs"`
}

// refuse is a run refused before anything ran: a missing interpreter, an
// unknown language, invalid or over-budget inputs, an input the workspace
// refused. It is an outcome.Error (read it with outcome.Of) and never holds
// the code or file contents.
func refuse(o outcome.Outcome) error { return &outcome.Error{Op: "coderun", Outcome: o} }

func invalid(detail string) error {
	return refuse(outcome.Outcome{Kind: outcome.InvalidArguments, Detail: detail})
}

func (r Request) withDefaults() Request {
	setInt(&r.MaxInputs, DefaultMaxInputs)
	set64(&r.MaxInputBytes, DefaultMaxInputBytes)
	set64(&r.MaxInlineBytes, DefaultMaxInlineBytes)
	set64(&r.MaxArtifactBytes, DefaultMaxArtifactBytes)
	setInt(&r.MaxArtifacts, DefaultMaxArtifacts)
	set64(&r.MaxCollectBytes, DefaultMaxCollectBytes)
	if r.SaveLargeTo == "" {
		r.SaveLargeTo = DefaultSaveLargeTo
	}
	return r
}

func setInt(p *int, def int) {
	if *p <= 0 {
		*p = def
	}
}

func set64(p *int64, def int64) {
	if *p <= 0 {
		*p = def
	}
}
