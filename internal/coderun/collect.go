package coderun

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"syscall"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

// maxDepth bounds how deep outputs/ is walked; walkPerArtifact times
// MaxArtifacts bounds the entries looked at in total; inlineTotal times
// MaxInlineBytes bounds the bytes one result carries inline (past it,
// artifacts are saved as if they were large).
const (
	maxDepth        = 16
	walkPerArtifact = 4
	inlineTotal     = 4
)

// collector walks outputs/ once the command has stopped. It never follows
// a link (entries are judged by Lstat, a file is opened and then checked
// to be the very inode Lstat saw, and everything goes through an os.Root,
// so no name can lead out of outputs/), never opens anything but a regular
// file, and reads at most MaxCollectBytes in total.
type collector struct {
	req     Request
	ws      *workspace.Workspace
	saveDir string // the workspace directory (relative) large artifacts go to

	out     []Artifact
	read    int64
	inline  int64 // bytes returned inline so far
	walked  int
	cut     bool
	omitted int
}

func (c *collector) collect(call *os.Root) []Artifact {
	c.out = []Artifact{} // collected: empty, never nil
	fi, err := call.Lstat(OutputsDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c.out
	case err != nil:
		return append(c.out, Artifact{Name: ".", Refused: RefusedNotCollected, Detail: "outputs/ could not be inspected"})
	case !fi.IsDir():
		return append(c.out, Artifact{Name: ".", Refused: refusal(fi.Mode()), Detail: "outputs/ itself was replaced"})
	}
	dir, err := call.OpenRoot(OutputsDir)
	if err != nil {
		return append(c.out, Artifact{Name: ".", Refused: RefusedNotCollected, Detail: "outputs/ could not be opened"})
	}
	defer dir.Close()
	c.walk(dir, ".", 0)
	return c.out
}

func (c *collector) walk(dir *os.Root, rel string, depth int) {
	names, err := c.list(dir, rel)
	if err != nil {
		c.add(Artifact{Name: rel, Refused: RefusedNotCollected, Detail: "the directory could not be read"})
		return
	}
	for _, n := range names {
		name := path.Join(rel, n)
		if c.full() {
			c.cut = true
			c.omitted++
			continue
		}
		c.walked++
		fi, err := dir.Lstat(name)
		switch {
		case err != nil:
			c.add(Artifact{Name: name, Refused: RefusedNotCollected, Detail: "the entry vanished"})
		case fi.IsDir() && depth+1 < maxDepth:
			c.walk(dir, name, depth+1)
		case fi.IsDir():
			c.add(Artifact{Name: name, Refused: RefusedNotCollected, Detail: "nested deeper than " + strconv.Itoa(maxDepth) + " directories"})
		case fi.Mode().IsRegular():
			c.file(dir, name, fi)
		default:
			c.add(Artifact{Name: name, Refused: refusal(fi.Mode())})
		}
	}
}

// list reads at most what the walk may still look at, sorted.
func (c *collector) list(dir *os.Root, rel string) ([]string, error) {
	f, err := dir.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(c.walkLimit() - c.walked + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	sort.Strings(names)
	return names, nil
}

func (c *collector) walkLimit() int { return c.req.MaxArtifacts * walkPerArtifact }

func (c *collector) full() bool {
	return len(c.out) >= c.req.MaxArtifacts || c.walked >= c.walkLimit()
}

func (c *collector) add(a Artifact) { c.out = append(c.out, a) }

func refusal(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return RefusedSymlink
	}
	return RefusedSpecial
}

// file reads one regular file within the bounds and returns it inline,
// saves it into the workspace, or refuses it.
func (c *collector) file(dir *os.Root, name string, fi fs.FileInfo) {
	a := Artifact{Name: name, Size: fi.Size()}
	switch {
	case fi.Size() > c.req.MaxArtifactBytes:
		a.Refused, a.Detail = RefusedOverBudget, "larger than the artifact limit of "+strconv.FormatInt(c.req.MaxArtifactBytes, 10)+" bytes"
		c.add(a)
		return
	case c.read+fi.Size() > c.req.MaxCollectBytes:
		a.Refused, a.Detail = RefusedNotCollected, "the call's collection limit of "+strconv.FormatInt(c.req.MaxCollectBytes, 10)+" bytes was reached"
		c.cut = true
		c.add(a)
		return
	}
	data, err := readSame(dir, name, fi, c.req.MaxArtifactBytes)
	c.read += int64(len(data))
	if err != nil {
		a.Refused, a.Detail = RefusedNotCollected, err.Error()
		c.add(a)
		return
	}
	sum := sha256.Sum256(data)
	a.Size, a.SHA256, a.MIME = int64(len(data)), hex.EncodeToString(sum[:]), DetectMIME(name, data)
	if a.Size <= c.req.MaxInlineBytes && c.inline+a.Size <= inlineTotal*c.req.MaxInlineBytes {
		a.Content = data
		c.inline += a.Size
	} else {
		c.save(&a, data)
	}
	c.add(a)
}

var errChanged = errors.New("the file changed while it was read")

// readSame opens name without blocking (a fifo swapped in cannot hang the
// runner), checks it is the regular file Lstat saw (not a link's target),
// and reads at most max bytes.
func readSame(dir *os.Root, name string, lfi fs.FileInfo, max int64) ([]byte, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, errors.New("the file could not be opened")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, lfi) {
		return nil, errChanged
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, errors.New("the file could not be read")
	}
	if int64(len(data)) > max {
		return nil, errChanged
	}
	return data, nil
}

// save writes a too-large artifact into the workspace through its policy
// fence; a workspace that may not be written leaves it refused.
func (c *collector) save(a *Artifact, data []byte) {
	if c.ws == nil {
		a.Refused, a.Detail = RefusedOverBudget, "over the inline limits, and there is no workspace to save it to"
		return
	}
	res, err := c.ws.WriteFile(path.Join(c.saveDir, a.Name), data)
	if err != nil {
		detail := "could not be saved"
		if o, ok := outcome.Of(err); ok {
			detail = "saving it was refused (" + string(o.Kind) + ")"
		}
		a.Refused, a.Detail = RefusedOverBudget, "over the inline limits; "+detail
		return
	}
	a.SavedTo = res.Path
}
