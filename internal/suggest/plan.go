package suggest

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/policy/policyfile"
)

// Input is what Suggest needs besides the refusals. Every path is
// absolute and clean; Home and ConfigDir may be "".
type Input struct {
	// Text is the policy file as it is; Exists false means there is none
	// yet, and the change starts from policyfile.InitTemplate (a file that
	// held only the change would, once trusted, replace every default).
	Text   []byte
	Exists bool
	// Root is the workspace root; relative entries are under it.
	Root string
	// Cwd is where a relative path in a record is taken from (a shell
	// names the file as the command gave it): the directory the run ran
	// in. Empty: Root.
	Cwd string
	// Home expands "~/" and locates the credential stores.
	Home string
	// ConfigDir is the user's config dir: ConfigDir/ringfence (the trust
	// store, the user's policy) is never suggested.
	ConfigDir string
	// MountPath: model paths (Refusal.Model: an audit trail of ringfence
	// mcp) under it are paths under Root; /workspace by default there.
	MountPath string
	// Stat reports whether a host path exists and is a directory; nil:
	// nothing exists.
	Stat func(p string) (isDir, exists bool)
	// IncludeSensitive puts changes that open a credential store, a
	// protected path, a private address or a privileged command into the
	// file; without it they are listed, loudly, and left out.
	IncludeSensitive bool
}

// Change is one proposed line group, with what it allows and its risk.
type Change struct {
	Kind string
	From string // the record(s) it answers
	What string // "write at src/gen", "host pkg.example:443", "command curl --version"
	// Lines are what the file gains (or the line it changes), as written.
	Lines []string
	Risk  string
	// Sensitive says why the change needs IncludeSensitive ("" for none).
	Sensitive string
	// Included reports whether the change is in the new text.
	Included bool
}

// Plan is the answer: the changes, what was left aside, and the file's
// text before and after.
type Plan struct {
	Changes []Change
	Skipped []Skipped
	Old     string // "" when the file does not exist
	New     string // equal to Old when nothing is included
	Created bool   // the file does not exist yet
	// Manual is set when the file's layout is not one this package edits
	// (or the edit did not come out as meant: ManualWhy): New is Old and
	// the person adds Changes' lines by hand.
	Manual    bool
	ManualWhy string
}

// Included counts the changes in New.
func (p *Plan) Included() int {
	n := 0
	for _, c := range p.Changes {
		if c.Included {
			n++
		}
	}
	return n
}

// Suggest turns refusals into the smallest change of the policy file that
// allows each one: an [[entry]] (or a changed access) for a path, an
// [network] allow rule for a host, an [[exec.rule]] for a command. Each
// change is checked on the parsed result: a file that would not do what
// the change says is an error, never written. Refusals that no change of
// this file can answer are in Skipped, with why.
func Suggest(refs []Refusal, in Input) (*Plan, error) {
	if !path.IsAbs(in.Root) {
		return nil, fmt.Errorf("root %q is not absolute", in.Root)
	}
	in.Root = policy.Clean(in.Root)
	if in.Home != "" {
		in.Home = policy.Clean(in.Home)
	}
	base := string(in.Text)
	if !in.Exists {
		base = policyfile.InitTemplate()
	}
	f, err := parse(base, in.Home)
	if err != nil {
		return nil, fmt.Errorf("the policy file does not parse: %w", err)
	}
	orig, _ := parse(base, in.Home) // the file as it was, kept apart from the edits
	s := &state{in: in, file: f, baseFile: orig, plan: &Plan{Created: !in.Exists}, exec: f.Exec, allow: append([]string(nil), f.Network.Allow...)}
	if in.Exists {
		s.plan.Old = base
	}
	if s.doc, err = parseDoc(base); err != nil {
		s.plan.Manual, s.plan.ManualWhy = true, err.Error()
	}
	for _, r := range refs {
		switch r.Kind {
		case KindPath:
			s.path(r)
		case KindHost:
			s.host(r)
		case KindCommand:
			s.command(r)
		}
	}
	s.network()
	s.plan.New = s.plan.Old
	if s.plan.Manual || s.plan.Included() == 0 {
		return s.plan, nil
	}
	s.plan.New = s.doc.text()
	if err := s.verify(); err != nil {
		// Fail closed: a text that does not do what the changes say is
		// never offered for writing.
		s.plan.New, s.plan.Manual, s.plan.ManualWhy = s.plan.Old, true, err.Error()
	}
	return s.plan, nil
}

func parse(text, home string) (*policyfile.File, error) {
	f, err := policyfile.Parse([]byte(text), "toml")
	if err != nil {
		return nil, err
	}
	f.Home = home
	return f, nil
}

type state struct {
	in       Input
	file     *policyfile.File // the file with the edits made so far
	baseFile *policyfile.File // the file as it was
	doc      *doc
	plan     *Plan
	// exec is the file's [exec] with the rules added so far; allow its
	// network allow list with the hosts added so far.
	exec       execpolicy.Config
	allow      []string
	newHosts   []hostChange
	pathChecks []pathCheck
	cmdChecks  [][]string
}

type hostChange struct {
	rule   string
	target netproxy.Target
	change int // index in plan.Changes
}

type pathCheck struct {
	path string
	need policy.Access
}

func (s *state) skip(r Refusal, what, why string) {
	s.plan.Skipped = append(s.plan.Skipped, Skipped{From: r.From, What: what, Why: why})
}

// propose records a change and, when it may be included, applies edit.
func (s *state) propose(c Change, edit func() error) bool {
	c.Included = c.Sensitive == "" || s.in.IncludeSensitive
	if c.Included && !s.plan.Manual {
		if err := edit(); err != nil {
			s.plan.Manual, s.plan.ManualWhy = true, err.Error()
		}
	}
	s.plan.Changes = append(s.plan.Changes, c)
	return c.Included
}

// ---- paths

func (s *state) path(r Refusal) {
	p := r.Path
	if strings.ContainsRune(p, 0) {
		s.skip(r, oneLine(p), "the path holds a NUL byte, which no entry may")
		return
	}
	if !path.IsAbs(p) {
		cwd := s.in.Cwd
		if !path.IsAbs(cwd) {
			cwd = s.in.Root
		}
		p = path.Join(cwd, p)
	}
	p = policy.Clean(p)
	if m := s.in.MountPath; r.Model && path.IsAbs(m) && m != s.in.Root && policy.Contains(policy.Clean(m), p) {
		p = policy.Clean(s.in.Root + "/" + strings.TrimPrefix(p, policy.Clean(m)))
	}
	if cfg := s.configDir(); cfg != "" && (policy.Contains(cfg, p) || policy.Contains(p, cfg)) {
		s.skip(r, p, "NEVER SUGGESTED: "+cfg+" holds your own policy and the trust store; a command that could reach it could trust its own policy")
		return
	}
	cur := s.accessAt(s.file, p)
	need := r.Need
	if need == policy.Deny {
		need = min(cur+1, policy.Write)
	}
	if cur >= need {
		why := "the policy file already grants " + cur.String() + " there: the refusal came from elsewhere (a --read-only or --deny flag, a protected name, a built-in protection, or another policy file)"
		if sens := s.sensitivePath(p, need); sens != "" {
			why += "; and it is " + sens
		}
		s.skip(r, p, why)
		return
	}
	grant := p
	if need == policy.Write {
		if _, ok := s.stat(p); !ok {
			grant = path.Dir(p) // creating a file needs its directory writable
		}
	}
	why := s.sensitivePath(p, need)
	if why == "" && grant != p {
		why = s.sensitivePath(grant, need)
	}
	name := s.entryName(grant)
	qn, ok := quote(name)
	if !ok {
		s.skip(r, p, "the path is not UTF-8, which a TOML file cannot hold")
		return
	}
	risk := "commands may read every file under " + name + ", and print it to the model or send it wherever the network lets them"
	if need == policy.Write {
		risk = "commands may create, change and delete every file under " + name + ", and what they leave there outlives the run"
		if !policy.Contains(s.in.Root, grant) {
			risk += " (outside the workspace)"
		}
	}
	c := Change{Kind: KindPath, From: r.From, What: need.String() + " at " + name, Risk: risk, Sensitive: why}
	head := []string{comment("ringfence policy suggest (" + r.From + ": " + r.Why + "): " + need.String() + " at " + name), comment("risk: " + risk)}
	if why != "" {
		head = append(head, comment("WARNING: "+why))
	}
	qa, _ := quote(need.String())
	if i := s.entryIndex(grant); i >= 0 {
		c.Lines = []string{"access = " + qa + "   (entry " + qn + ", was " + s.file.Entries[i].Access.String() + ")"}
		if s.propose(c, func() error { return s.setEntryAccess(i, qa, head) }) {
			a := need
			s.file.Entries[i].Access = &a
			s.pathChecks = append(s.pathChecks, pathCheck{p, need})
		}
		return
	}
	c.Lines = []string{"[[entry]]", "path = " + qn, "access = " + qa}
	if s.propose(c, func() error { return s.doc.appendBlock(append(head, c.Lines...)...) }) {
		a := need
		s.file.Entries = append(s.file.Entries, policyfile.FileEntry{Path: name, Access: &a})
		s.pathChecks = append(s.pathChecks, pathCheck{p, need})
	}
}

func (s *state) configDir() string {
	if !path.IsAbs(s.in.ConfigDir) {
		return ""
	}
	return policy.Clean(s.in.ConfigDir + "/ringfence")
}

func (s *state) stat(p string) (bool, bool) {
	if s.in.Stat == nil {
		return false, false
	}
	return s.in.Stat(p)
}

// entryName is how the file names p: relative to the root, "~/…" under
// home, else absolute.
func (s *state) entryName(p string) string {
	switch {
	case p == s.in.Root:
		return "."
	case policy.Contains(s.in.Root, p):
		rel := strings.TrimPrefix(p, s.in.Root+"/")
		if strings.HasPrefix(rel, "~") {
			// <root>/~ written as "~" would be the home directory: a
			// record naming it got "write at ~" proposed, unflagged
			// (judged on the workspace path), as lines to add by hand.
			rel = "./" + rel
		}
		return rel
	case s.in.Home != "" && s.in.Home != "/" && policy.Contains(s.in.Home, p):
		return "~" + strings.TrimPrefix(p, s.in.Home)
	}
	return p
}

// expand is policyfile's rule for an entry's path.
func (s *state) expand(p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if s.in.Home == "" {
			return ""
		}
		return policy.Clean(s.in.Home + "/" + p[1:])
	case strings.HasPrefix(p, "/"):
		return policy.Clean(p)
	case p == "" || strings.HasPrefix(p, "~"):
		return ""
	}
	return policy.Clean(path.Join(s.in.Root, p))
}

func (s *state) entryIndex(p string) int {
	for i, e := range s.file.Entries {
		if s.expand(e.Path) == p {
			return i
		}
	}
	return -1
}

// accessAt is what the file grants at p: the deepest entry containing
// it (the later of two at one path), else the workspace root's write
// under workspace-write (an omitted mode keeps ringfence's built-in
// workspace-write), else the baseline.
func (s *state) accessAt(f *policyfile.File, p string) policy.Access {
	acc, depth := policy.Read, -1
	if f.Baseline != nil {
		acc = *f.Baseline
	}
	mode := policy.WorkspaceWrite
	if f.Mode != nil {
		mode = *f.Mode
	}
	if mode == policy.DangerFullAccess {
		return policy.Write
	}
	if mode == policy.WorkspaceWrite && policy.Contains(s.in.Root, p) {
		acc, depth = policy.Write, policy.Depth(s.in.Root)
	}
	for _, e := range f.Entries {
		ep := s.expand(e.Path)
		if ep == "" || e.Access == nil || !policy.Contains(ep, p) {
			continue
		}
		if d := policy.Depth(ep); d >= depth {
			acc, depth = *e.Access, d
		}
	}
	return acc
}

// systemDirs are where a write grant reaches the whole machine.
var systemDirs = []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/boot", "/var", "/opt", "/root", "/proc", "/sys", "/dev", "/run"}

// sensitivePath says why granting need at p must not happen silently.
func (s *state) sensitivePath(p string, need policy.Access) string {
	home := s.in.Home
	if home != "" && home != "/" {
		for _, n := range policy.CredentialNames {
			if c := policy.Clean(home + "/" + n); policy.Contains(c, p) {
				return "~/" + n + " is a credential store: keys and tokens a command could print to the model or send away"
			} else if policy.Contains(p, c) && s.widens(p, need, c) {
				// A grant over a directory holding a store (~/.cargo,
				// ~/.local, home under a deny baseline) opens the store as
				// surely as a grant inside it, unless a deeper entry keeps it.
				return "it holds ~/" + n + ", a credential store the grant would open: keys and tokens a command could print to the model or send away"
			}
		}
	}
	if p != s.in.Root && policy.Contains(s.in.Root, p) {
		if m := policy.MatchProtectedName(strings.TrimPrefix(p, s.in.Root+"/"), s.file.Protected); m.Kind != policy.NameNone {
			return "a protected path (" + m.Kind.String() + " " + strconv.Quote(m.Name) + "): what is written there runs on your next git command, shell or editor start, or widens the policy"
		}
	}
	if home != "" && home != "/" && p != home && policy.Contains(home, p) {
		if m := policy.MatchProtectedName(strings.TrimPrefix(p, home+"/"), nil); m.Kind != policy.NameNone {
			return "a protected path in your home (" + m.Kind.String() + " " + strconv.Quote(m.Name) + ")"
		}
	}
	if need != policy.Write {
		return ""
	}
	switch {
	case p == "/":
		return "write access to the whole file system"
	case home != "" && policy.Contains(p, home):
		return "write access over your whole home: shell start-up files, tool configs, keys"
	case p != s.in.Root && policy.Contains(p, s.in.Root):
		return "write access over a parent of the workspace"
	}
	if policy.Contains(s.in.Root, p) || policy.Contains("/var/tmp", p) {
		return "" // the workspace (wherever it lives), a shared temp dir
	}
	for _, d := range systemDirs {
		if policy.Contains(d, p) {
			return "write access to a system directory (" + d + ")"
		}
	}
	return ""
}

// widens reports whether an entry granting need at p raises the file's
// access at c, beneath p: no deeper entry already decides c, and what the
// file grants there now is less than need.
func (s *state) widens(p string, need policy.Access, c string) bool {
	if s.accessAt(s.file, c) >= need {
		return false
	}
	for _, e := range s.file.Entries {
		if ep := s.expand(e.Path); ep != "" && e.Access != nil && policy.Contains(ep, c) && policy.Depth(ep) > policy.Depth(p) {
			return false
		}
	}
	return true
}

func (s *state) setEntryAccess(i int, qa string, head []string) error {
	si := s.doc.find("entry", true, i)
	// The i-th entry is the i-th [[entry]] table only when every entry
	// is written as one (not inline).
	if si < 0 || countHeaders(s.doc, "entry") != len(s.file.Entries) {
		return errUnsupported
	}
	return s.doc.setKey(si, "access", qa, head)
}

func countHeaders(d *doc, name string) int {
	n := 0
	for _, sec := range d.sections {
		if sec.name == name && sec.array {
			n++
		}
	}
	return n
}

// ---- hosts

func (s *state) host(r Refusal) {
	t, err := netproxy.ParseHost(r.Host)
	if err != nil {
		s.skip(r, r.Host, "not a host name or address a rule can name")
		return
	}
	t.Port = uint16(r.Port)
	rule := t.Host()
	if t.IsIP() && t.Addr.Is6() {
		rule = "[" + rule + "]"
	}
	if r.Port > 0 {
		rule += ":" + strconv.Itoa(r.Port)
	}
	if _, err := netproxy.ParseRule(rule, true); err != nil {
		s.skip(r, rule, "no allow rule can name it: "+err.Error())
		return
	}
	if s.allows(s.allow, t) {
		s.skip(r, rule, "the policy file already allows it (an --allow-domain flag replaces the file's list: drop the flag, or add this host to it)")
		return
	}
	for _, h := range s.newHosts {
		if h.rule == rule {
			return
		}
	}
	var why string
	if r.Private || t.IsIP() && netproxy.Private(t.Addr) != "" {
		why = "a private address (" + netproxy.Private(t.Addr) + "): services on this machine or its network; a cloud metadata address hands out credentials"
		if !t.IsIP() {
			why = "it resolved to a private address: services on this machine or its network"
		}
	}
	risk := "commands may connect to " + rule + " and send it anything they can read"
	if s.netMode() != policy.NetDomains {
		risk += "; the network mode becomes domains (was " + s.netMode().String() + "): only listed hosts, through ringfence's proxy"
	}
	q, _ := quote(rule)
	c := Change{Kind: KindHost, From: r.From, What: "host " + rule, Lines: []string{"allow += " + q + "   ([network])"}, Risk: risk, Sensitive: why}
	if s.propose(c, func() error { return nil }) {
		s.newHosts = append(s.newHosts, hostChange{rule: rule, target: t, change: len(s.plan.Changes) - 1})
	}
}

func (s *state) netMode() policy.NetworkMode {
	return s.file.Network.Mode // omitted: deny, the zero value
}

func (s *state) allows(allow []string, t netproxy.Target) bool {
	if s.netMode() == policy.NetAllowAll {
		return true
	}
	if s.netMode() != policy.NetDomains {
		return false
	}
	a, err1 := netproxy.ParseRules(append(append([]string(nil), s.file.Network.Domains...), allow...), true)
	d, err2 := netproxy.ParseRules(s.file.Network.Deny, false)
	if err1 != nil || err2 != nil {
		return false
	}
	return netproxy.Rules{Allow: a, Deny: d}.Decide(t).Verdict == netproxy.Allow
}

// network writes every host added into one edit of [network].
func (s *state) network() {
	if len(s.newHosts) == 0 || s.plan.Manual {
		return
	}
	var rules, notes []string
	for _, h := range s.newHosts {
		rules = append(rules, h.rule)
		c := s.plan.Changes[h.change]
		notes = append(notes, comment("ringfence policy suggest ("+c.From+"): "+c.What), comment("risk: "+c.Risk))
		if c.Sensitive != "" {
			notes = append(notes, comment("WARNING: "+c.Sensitive))
		}
	}
	list, ok := quoteList(append(append([]string(nil), s.file.Network.Allow...), rules...))
	if !ok {
		s.plan.Manual = true
		return
	}
	err := func() error {
		si := s.doc.find("network", false, 0)
		if si < 0 {
			return s.doc.appendBlock(append(notes, "[network]", `mode = "domains"`, "allow = "+list)...)
		}
		if s.netMode() != policy.NetDomains {
			if err := s.doc.setKey(si, "mode", `"domains"`, nil); err != nil {
				return err
			}
		}
		return s.doc.setKey(s.doc.find("network", false, 0), "allow", list, notes)
	}()
	if err != nil {
		s.plan.Manual = true
		return
	}
	s.file.Network.Mode = policy.NetDomains
	s.allow = append(s.allow, rules...)
}

// ---- commands

func (s *state) command(r Refusal) {
	what := strings.Join(r.Argv, " ")
	if len(r.Argv) == 3 && isShell(r.Argv[0]) && r.Argv[1] == "-c" {
		what = r.Argv[2]
	}
	what = oneLine(what)
	cl, err := s.exec.Compile()
	if err != nil {
		s.skip(r, what, "the file's [exec] does not compile: "+err.Error())
		return
	}
	if allowed(cl.Classify(r.Argv)) {
		s.skip(r, what, "the policy file's [exec] already allows it: the refusal came from another policy file")
		return
	}
	trial := s.exec
	trial.Rules = append([]execpolicy.Rule(nil), s.exec.Rules...)
	var rules []execpolicy.Rule
	var caps []execpolicy.Classification
	for _, argv := range simpleCommands(r.Argv) {
		cl, err := trial.Compile()
		if err != nil {
			break
		}
		c := cl.Classify(argv)
		if allowed(c) {
			continue
		}
		rule := execpolicy.Rule{Prefix: argv, Decision: "allow", Reason: "allowed by ringfence policy suggest", Match: [][]string{argv}}
		trial.Rules = append(trial.Rules, rule)
		rules, caps = append(rules, rule), append(caps, c)
	}
	cl, err = trial.Compile()
	if err != nil || len(rules) == 0 || !allowed(cl.Classify(r.Argv)) {
		why := "no prefix rule allows it (a word that is not literal, or a command inside another one)"
		if err == nil {
			c := cl.Classify(r.Argv)
			why += ": " + c.Outcome.String() + ", " + c.Program + ": " + c.Reason
		}
		s.skip(r, what, why)
		return
	}
	all := true
	for i, rule := range rules {
		c := caps[i]
		var why string
		switch c.Capability {
		case execpolicy.Privilege, execpolicy.Critical, execpolicy.Credential:
			why = "the command table calls it " + c.Capability.String() + ": " + c.Reason
		}
		words := strings.Join(rule.Prefix, " ")
		risk := "runs `" + oneLine(words) + "` without asking, and the same words followed by any other arguments (a prefix rule); it was " + c.Outcome.String() + " as " + c.Capability.String()
		if len(rule.Prefix) == 1 {
			risk = "runs every `" + oneLine(words) + "` command, whatever its arguments, without asking; it was " + c.Outcome.String() + " as " + c.Capability.String()
		}
		prefix, ok1 := quoteList(rule.Prefix)
		reason, ok2 := quote(rule.Reason)
		if !ok1 || !ok2 {
			s.skip(r, what, "the command is not UTF-8, which a TOML file cannot hold")
			return
		}
		lines := []string{"[[exec.rule]]", "prefix = " + prefix, `decision = "allow"`, "reason = " + reason, "match = [" + prefix + "]"}
		head := []string{comment("ringfence policy suggest (" + r.From + "): " + c.Capability.String() + ", " + c.Program + ": " + c.Reason), comment("risk: " + risk)}
		if why != "" {
			head = append(head, comment("WARNING: "+why))
		}
		ch := Change{Kind: KindCommand, From: r.From, What: "command " + oneLine(words), Lines: lines, Risk: risk, Sensitive: why}
		if s.propose(ch, func() error { return s.doc.appendBlock(append(head, lines...)...) }) {
			s.exec.Rules = append(s.exec.Rules, rule)
		} else {
			all = false
		}
	}
	if all { // a command whose sensitive part was left out stays refused, as the person is told
		s.cmdChecks = append(s.cmdChecks, r.Argv)
	}
}

func allowed(c execpolicy.Classification) bool {
	return c.Outcome == execpolicy.Allow || c.Outcome == execpolicy.AllowScoped
}

// ---- verification

// verify parses the new text and checks that every included change does
// what it says there: the access at each path, each host allowed, each
// command allowed.
func (s *state) verify() error {
	f, err := parse(s.plan.New, s.in.Home)
	if err != nil {
		return fmt.Errorf("the edited file would not parse (%w)", err)
	}
	var errs []error
	// The file must still load as the CLI loads it, if it did before.
	if _, err := f.Defaults(s.in.Root); err != nil {
		if _, was := s.baseFile.Defaults(s.in.Root); was == nil {
			errs = append(errs, err)
		}
	}
	for _, pc := range s.pathChecks {
		if got := s.accessAt(f, pc.path); got < pc.need {
			errs = append(errs, fmt.Errorf("the edited file grants %s at %s, not %s", got, pc.path, pc.need))
		}
	}
	check := &state{in: s.in, file: f}
	for _, h := range s.newHosts {
		if !check.allows(f.Network.Allow, h.target) {
			errs = append(errs, fmt.Errorf("the edited file does not allow %s", h.rule))
		}
	}
	cl, err := f.Exec.Compile()
	if err != nil {
		errs = append(errs, fmt.Errorf("the edited file's [exec] does not compile: %w", err))
	} else {
		for _, argv := range s.cmdChecks {
			if c := cl.Classify(argv); !allowed(c) {
				errs = append(errs, fmt.Errorf("the edited file does not allow %q: %s", argv, c.Reason))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return nil
}
