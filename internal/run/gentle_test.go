package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestCtxCause(t *testing.T) {
	if c := ctxCause(context.DeadlineExceeded); !c.timedOut || c.aborted {
		t.Errorf("deadline: %+v, want timed out", c)
	}
	if c := ctxCause(fmt.Errorf("wrapped: %w", context.DeadlineExceeded)); !c.timedOut {
		t.Errorf("wrapped deadline: %+v, want timed out", c)
	}
	if c := ctxCause(context.Canceled); !c.aborted || c.timedOut {
		t.Errorf("cancel: %+v, want aborted", c)
	}
	if c := ctxCause(errors.New("other")); !c.aborted {
		t.Errorf("other: %+v, want aborted", c)
	}
}

func TestGentleTargets(t *testing.T) {
	ringfenceBin, bwrapBin, shBin, sleepBin, image := fileID{1, 10}, fileID{1, 20}, fileID{1, 30}, fileID{1, 40}, fileID{2, 7}
	p := func(pid int, id fileID) treeProc { return treeProc{pid: pid, exe: id, ok: true} }
	unknown := treeProc{pid: 99}
	for _, tc := range []struct {
		name   string
		root   treeProc
		tree   []treeProc
		runner bool
		want   []int
	}{
		{"plain root is the command", p(1, shBin), []treeProc{p(2, sleepBin), p(3, shBin)}, false, []int{1, 2, 3}},
		{"plain root, unreadable child still signalled", p(1, shBin), []treeProc{unknown}, false, []int{1, 99}},
		{"linux init root", p(1, ringfenceBin), []treeProc{p(2, shBin), p(3, sleepBin)}, true, []int{2, 3}},
		{"bwrap chain", p(1, bwrapBin), []treeProc{p(2, bwrapBin), p(3, ringfenceBin), p(4, shBin), p(5, sleepBin)}, true, []int{4, 5}},
		{"bwrap chain, shim from the image", p(1, bwrapBin), []treeProc{p(2, bwrapBin), p(3, image), p(4, shBin)}, true, []int{4}},
		{"the image is not recognised below a plain root", p(1, shBin), []treeProc{p(2, image)}, false, []int{1, 2}},
		{"reaper root", p(1, ringfenceBin), []treeProc{p(2, shBin)}, true, []int{2}},
		{"unreadable is never guessed", p(1, ringfenceBin), []treeProc{unknown, p(2, shBin)}, true, []int{2}},
		{"unreadable root", treeProc{pid: 1}, []treeProc{p(2, shBin)}, true, []int{2}},
		{"nothing below", p(1, ringfenceBin), nil, true, nil},
	} {
		got := gentleTargets(tc.root, tc.tree, tc.runner, []fileID{ringfenceBin, image})
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
