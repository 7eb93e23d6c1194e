package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	rfmcp "github.com/ringfence/ringfence/internal/mcp"
	"github.com/ringfence/ringfence/policy"
)

// httpAuth is what --http serves with: the credentials, where their files
// are (so the sandbox can be denied them), and what to remove at exit.
type httpAuth struct {
	creds     []rfmcp.Credential
	tokenPath string   // the agent token's file (given or generated)
	generated bool     // tokenPath was made by this process
	secrets   []string // paths the sandbox must not read: token files, their generated directory, the socket's directory
	cleanup   []string // removed at exit, last first
}

// unixPrefix selects a unix socket: --http unix:/path/to/mcp.sock.
const unixPrefix = "unix:"

// prepareHTTP works out the credentials before anything is served: an
// explicit --token-file, or a token generated into a new file only this
// user can read; plus the person's --approver-token-file, if any.
func prepareHTTP(mf mcpFlags, stderr io.Writer) (*httpAuth, error) {
	if mf.token != "" {
		return nil, errors.New("--token puts the token in the command line, which every local user can read (ps); " +
			"write it to a file only you can read and pass --token-file FILE, or pass nothing and one is generated")
	}
	if mf.tokenFile != "" && mf.tokenOut != "" {
		return nil, errors.New("pass --token-file (a token you made) or --token-out (where to put a generated one), not both")
	}
	a := &httpAuth{}
	if strings.HasPrefix(mf.http, unixPrefix) {
		if err := a.socketDir(mf.http); err != nil {
			return nil, err
		}
	} else if err := rfmcp.CheckListen(mf.http, mf.tokenFile != ""); err != nil {
		return nil, fmt.Errorf("--http %s: %w; pass --token-file FILE, or listen on 127.0.0.1", mf.http, err)
	}
	var agent string
	var err error
	switch {
	case mf.tokenFile != "":
		if agent, err = readToken("--token-file", mf.tokenFile); err != nil {
			a.removeAll()
			return nil, err
		}
		a.tokenPath = absPath(mf.tokenFile)
	default:
		if agent, err = a.generate(mf.tokenOut); err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "ringfence: the bearer token is in %s (readable only by you); send it as Authorization: Bearer <token>\n", a.tokenPath)
	}
	a.secrets = append(a.secrets, a.tokenPath)
	a.creds = append(a.creds, rfmcp.Credential{Name: "agent", Token: agent})
	if mf.approverTokenFile != "" {
		tok, err := readToken("--approver-token-file", mf.approverTokenFile)
		if err != nil {
			a.removeAll()
			return nil, err
		}
		if tok == agent {
			a.removeAll()
			return nil, errors.New("--approver-token-file holds the agent's token: the person's token must be another, or the agent could approve")
		}
		a.creds = append(a.creds, rfmcp.Credential{Name: "approver", Token: tok, Approver: true})
		a.secrets = append(a.secrets, absPath(mf.approverTokenFile))
	}
	return a, nil
}

// generate makes a random token and writes it to a file created 0600 with
// O_EXCL (never an existing file, never through a link, never chmod-ed
// after): out, or token in a new private (0700) temporary directory.
func (a *httpAuth) generate(out string) (string, error) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (Go 1.24+)
	tok := hex.EncodeToString(b[:])
	if out == "" {
		dir, err := os.MkdirTemp("", "ringfence-mcp-") // 0700
		if err != nil {
			return "", fmt.Errorf("a directory for the generated token: %w", err)
		}
		a.cleanup = append(a.cleanup, dir)
		a.secrets = append(a.secrets, dir)
		out = filepath.Join(dir, "token")
	}
	out = absPath(out)
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		a.removeAll()
		return "", fmt.Errorf("--token-out %s: %w (the file must not exist yet)", out, err)
	}
	a.tokenPath, a.generated = out, true
	a.cleanup = append(a.cleanup, out)
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		a.removeAll()
		return "", fmt.Errorf("writing the token to %s: %w", out, err)
	}
	if err := f.Close(); err != nil {
		a.removeAll()
		return "", fmt.Errorf("writing the token to %s: %w", out, err)
	}
	return tok, nil
}

// removeAll removes what this process created, last first.
func (a *httpAuth) removeAll() {
	for i := len(a.cleanup) - 1; i >= 0; i-- {
		_ = os.Remove(a.cleanup[i])
	}
	a.cleanup = nil
}

// readToken reads a token from a file only its owner can read: a token
// others can read is refused (as ssh refuses a readable key), so a mistake
// in its mode is not silently a hole. The check is on the opened file
// (fstat), so a link swapped in between cannot pass another file off.
func readToken(flag, path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	if err := privateFile(fi); err != nil {
		return "", fmt.Errorf("%s %s: %w", flag, path, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case tok == "":
		return "", fmt.Errorf("%s %s: the file is empty", flag, path)
	case len(tok) < rfmcp.MinTokenLen:
		return "", fmt.Errorf("%s %s: the token is shorter than %d characters", flag, path, rfmcp.MinTokenLen)
	}
	return tok, nil
}

// privateFile accepts a regular file owned by this user that nobody else
// may read or write.
func privateFile(fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("mode %v lets other users read or write it; chmod 600 it", fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("owned by uid %d, not by you (uid %d)", st.Uid, os.Geteuid())
	}
	return nil
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// denySecrets keeps the sandbox from reading the token files (and the
// socket's directory): a command that read the token could open its own
// session. Under network deny or loopback it could not reach the server
// anyway (its own network namespace); under allow-all this is the wall.
func denySecrets(d *policy.Defaults, secrets []string) {
	for _, p := range secrets {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		d.Entries = append(d.Entries, policy.Entry{Path: p, Access: policy.Deny})
	}
}

// listen opens --http: a TCP address, or unix:/path — a socket made 0600
// in a directory only this user may enter (created 0700 when missing; an
// existing one that others may enter is refused).
func listen(addr string, a *httpAuth) (net.Listener, string, error) {
	path, ok := strings.CutPrefix(addr, unixPrefix)
	if !ok {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, "", err
		}
		return ln, "http://" + ln.Addr().String() + "/", nil
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, "", fmt.Errorf("--http %s: %w", addr, err)
	}
	// Nobody else can enter the directory, so the moment before the chmod
	// is not a window; the mode is for whoever copies the socket's path.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, "", err
	}
	return ln, "unix:" + path + " (http://localhost/)", nil
}

// socketDir makes (0700) or checks the directory of a unix socket: it must
// be this user's and closed to everyone else, since it — not the socket's
// own mode — is what keeps other users out.
func (a *httpAuth) socketDir(addr string) error {
	path := strings.TrimPrefix(addr, unixPrefix)
	if path == "" || !filepath.IsAbs(path) {
		return fmt.Errorf("--http %s: name an absolute socket path, e.g. unix:/run/user/1000/ringfence/mcp.sock", addr)
	}
	dir := filepath.Dir(path)
	if err := os.Mkdir(dir, 0o700); err == nil {
		a.cleanup = append(a.cleanup, dir)
	} else if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || st == nil || int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("--http %s: the directory %s must be yours and closed to others (mode 0700; it is %v)", addr, dir, fi.Mode().Perm())
	}
	a.secrets = append(a.secrets, dir)
	return nil
}

// allowedHosts are the Host names accepted besides loopback: the person's
// --allow-host names, and the address a non-loopback listener was given.
func allowedHosts(addr string, extra []string) []string {
	hosts := append([]string(nil), extra...)
	if strings.HasPrefix(addr, unixPrefix) {
		return hosts
	}
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			hosts = append(hosts, host)
		}
	}
	return hosts
}

func serveHTTP(ctx context.Context, stderr io.Writer, srv *rfmcp.Server, mf mcpFlags, a *httpAuth) error {
	h, err := srv.HTTPHandler(rfmcp.HTTPOptions{
		Credentials:  a.creds,
		AllowHosts:   allowedHosts(mf.http, mf.allowHosts),
		AllowOrigins: mf.allowOrigins,
	})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	ln, where, err := listen(mf.http, a)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	approvals := "off (this transport's clients cannot approve; pass --approver-token-file)"
	if len(a.creds) > 1 {
		approvals = "asked only of sessions opened with the approver token"
	}
	fmt.Fprintf(stderr, "ringfence: serving MCP on %s; bearer token required; approvals: %s\n", where, approvals)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
