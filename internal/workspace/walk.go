package workspace

import (
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// walkEntry is one name a walk met, relative to the root.
type walkEntry struct {
	rel   string
	name  string
	typ   fs.FileMode // type bits only, from the directory itself
	depth int         // 1 for the base's own children
}

// dirent is one name a directory listing returned, with its type bits as
// the directory reports them (a link is a link, never followed).
type dirent struct {
	name string
	typ  fs.FileMode
}

func (d dirent) Name() string      { return d.name }
func (d dirent) Type() fs.FileMode { return d.typ }

// walker visits a tree beneath the root with a bounded pool of goroutines.
// It never follows a link (each directory is opened with no link allowed
// anywhere on its path, each file with O_NOFOLLOW relative to its
// directory), skips .git, honours .gitignore unless told not to, and skips
// what the policy denies without a word.
type walker struct {
	w        *Workspace
	noIgnore bool
	maxDepth int // 0: unlimited
	// visit sees every entry, in the goroutine that read its directory,
	// with that directory open as dirfd. It returns false to stop early.
	visit func(dirfd int, e walkEntry) bool
	// skipDir, when set, prunes a directory whose whole subtree a caller
	// knows it does not need (a page before the cursor). It may only ever
	// hide entries, never add any.
	skipDir func(rel string) bool

	entries atomic.Int64
	stopped atomic.Bool
	hitMax  atomic.Bool

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []dirJob
	pending int
}

type dirJob struct {
	rel   string
	depth int
	ign   *ignoreSet
	pol   *policy.TreeDir // the policy's view of rel: decides each entry in O(1)
}

// run walks base (a symlink-free directory) and reports whether the entry
// bound stopped it.
func (k *walker) run(base string) *outcome.Outcome {
	k.cond = sync.NewCond(&k.mu)
	// The policy is decided once per directory (policy.Tree), not by
	// cleaning every entry's path against every layer.
	view := k.w.pol.Tree().Dir(k.w.host(base))
	k.queue = []dirJob{{rel: base, ign: k.ancestorsIgnore(base), pol: view}}
	k.pending = 1
	n := k.w.opts.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() { defer wg.Done(); k.work() }()
	}
	wg.Wait()
	if k.hitMax.Load() {
		return &outcome.Outcome{Kind: outcome.ScopeLimited, Path: k.w.model(base), Bound: "entries", Limit: int64(k.w.opts.MaxEntries)}
	}
	return nil
}

func (k *walker) work() {
	for {
		job, ok := k.next()
		if !ok {
			return
		}
		k.readDir(job)
		k.done()
	}
}

func (k *walker) next() (dirJob, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for len(k.queue) == 0 && k.pending > 0 {
		k.cond.Wait()
	}
	if len(k.queue) == 0 {
		return dirJob{}, false
	}
	job := k.queue[len(k.queue)-1] // depth first keeps the queue short
	k.queue = k.queue[:len(k.queue)-1]
	return job, true
}

func (k *walker) push(job dirJob) {
	k.mu.Lock()
	k.queue = append(k.queue, job)
	k.pending++
	k.mu.Unlock()
	k.cond.Signal()
}

func (k *walker) done() {
	k.mu.Lock()
	k.pending--
	last := k.pending == 0
	k.mu.Unlock()
	if last {
		k.cond.Broadcast()
	}
}

func (k *walker) stop() { k.stopped.Store(true) }

// readDir lists one directory and hands its entries on. A directory that
// cannot be opened without a link (one was swapped in) is skipped.
func (k *walker) readDir(job dirJob) {
	if k.stopped.Load() {
		return
	}
	fd, err := k.w.res.sysOpenDirRead(job.rel)
	if err != nil {
		return
	}
	defer sysClose(fd)
	list, err := sysReadDir(fd)
	if err != nil {
		return
	}
	if k.entries.Add(int64(len(list))) > int64(k.w.opts.MaxEntries) {
		k.hitMax.Store(true)
		k.stop()
		return
	}
	ign := job.ign
	if !k.noIgnore {
		ign = ign.with(job.rel, readIgnore(fd))
	}
	for _, d := range list {
		if k.stopped.Load() {
			return
		}
		k.entry(fd, job, ign, walkEntry{rel: joinRel(job.rel, d.Name()), name: d.Name(), typ: d.Type(), depth: job.depth + 1})
	}
}

func (k *walker) entry(dirfd int, job dirJob, ign *ignoreSet, e walkEntry) {
	isDir := e.typ.IsDir()
	if e.name == ".git" {
		return
	}
	// A denied subtree is skipped silently, unless a narrower layer inside
	// it grants read: then it is entered but its own entries stay unshown.
	view := job.pol.Child(e.name)
	shown := view.Access() >= policy.Read
	if !shown && !(isDir && view.Beneath()) {
		return
	}
	if !k.noIgnore && ign.ignored(e.rel, isDir) {
		return
	}
	if shown && !k.visit(dirfd, e) {
		k.stop()
		return
	}
	if isDir && (k.maxDepth == 0 || e.depth < k.maxDepth) && (k.skipDir == nil || !k.skipDir(e.rel)) {
		k.push(dirJob{rel: e.rel, depth: e.depth, ign: ign, pol: view})
	}
}

// ancestorsIgnore loads the .gitignore files of the root and of every
// directory down to base, so a walk of a subdirectory honours them too.
func (k *walker) ancestorsIgnore(base string) *ignoreSet {
	var set *ignoreSet
	if k.noIgnore {
		return nil
	}
	dirs := []string{""}
	for _, c := range splitAll(base) {
		dirs = append(dirs, joinRel(dirs[len(dirs)-1], c))
	}
	for _, d := range dirs[:len(dirs)-1] {
		fd, err := k.w.res.sysOpenDirRead(d)
		if err != nil {
			continue
		}
		set = set.with(d, readIgnore(fd))
		sysClose(fd)
	}
	return set
}

const maxIgnoreBytes = 1 << 20

// readIgnore reads dirfd's .gitignore, if it is a regular file of sane size.
func readIgnore(dirfd int) []ignoreRule {
	fd, err := sysOpenChild(dirfd, ".gitignore")
	if err != nil {
		return nil
	}
	defer sysClose(fd)
	st, err := sysFstat(fd)
	if err != nil || !st.mode.IsRegular() || st.size > maxIgnoreBytes {
		return nil
	}
	buf := make([]byte, st.size)
	n, _ := sysRead(fd, buf)
	return parseIgnore(buf[:n])
}

// openBase resolves the base of a walk and checks the policy there.
func (w *Workspace) openBase(path string) (rel, real string, st sysStat, err error) {
	if rel, err = w.cleanScope(path); err != nil {
		return
	}
	fd, real, err := w.res.resolve(rel, true)
	if err != nil {
		return rel, "", st, w.lookupFailure(rel, err)
	}
	defer sysClose(fd)
	if err = w.checkRead(real, rel); err != nil {
		return
	}
	if st, err = sysFstat(fd); err != nil {
		err = fail(ioFailure(w.model(rel), "the directory cannot be inspected"))
	}
	return rel, real, st, err
}
