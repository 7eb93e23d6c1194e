package main

import (
	"bufio"
	"fmt"
	"os"
	"syscall"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/internal/auditview"
)

// writeAuditHTML writes the page to out, 0600 like the trail itself (it
// holds the same command lines), never through a symbolic link planted
// under its name.
func writeAuditHTML(out, title string, recs []audit.Record) error {
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("--html: %w", err)}
	}
	if err := f.Chmod(0o600); err != nil { // an existing file keeps its mode otherwise
		f.Close()
		return &exitError{code: exitUsage, err: fmt.Errorf("--html: %w", err)}
	}
	w := bufio.NewWriter(f)
	err = auditview.Render(w, title, recs)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("--html: %w", err)}
	}
	return nil
}
