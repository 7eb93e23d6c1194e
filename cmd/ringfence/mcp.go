package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/audit"
	rfmcp "github.com/ringfence/ringfence/internal/mcp"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/tools"
)

// mcpFlags are the server's own flags, beside the shared sandbox flags.
type mcpFlags struct {
	audit, http, token, tokenFile string
	gateTimeout                   time.Duration
}

func newMCPCmd() *cobra.Command {
	var flags sandboxFlags
	var mf mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp [flags]",
		Short: "Serve the sandboxed tools to an agent over the Model Context Protocol",
		Long: `mcp serves run_command, run_code, read_file, write_file, edit_file, list_files,
glob_files, grep_files and read_media over MCP, confined to the workspace
(--root, default the current directory), which the model sees as /workspace.

By default it speaks over stdio, as agents start it. With --http ADDR it serves
the streamable HTTP transport instead, on a loopback address unless a bearer
token is given (--token or --token-file); with a token every request must send
"Authorization: Bearer <token>".

When a command needs approval, or a write falls outside what the policy allows,
the person at the client is asked through MCP elicitation (approve once, approve
for the session, decline). A client that cannot ask, or a person who does not
answer within --gate-timeout, gets gate-unavailable: nothing runs.

--audit FILE appends one JSON line per call; read it with ringfence audit FILE. The file is
read-only to the sandbox, even inside the workspace.`,
		Example: `  ringfence mcp --root .
  claude mcp add ringfence -- ringfence mcp --root .
  ringfence mcp --root ~/src/app --network loopback --audit ~/.ringfence-audit.jsonl
  ringfence mcp --http 127.0.0.1:8080
  ringfence mcp --http 0.0.0.0:8080 --token-file ~/.config/ringfence/token`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ld, err := flags.load(cmd.Flags())
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if !cmd.Flags().Changed("mount-path") {
				ld.config.MountPath = "/workspace"
			}
			return serveMCP(cmd, ld, mf)
		},
	}
	flags.register(cmd.Flags())
	fs := cmd.Flags()
	fs.StringVar(&mf.audit, "audit", "", "append one JSON line per tool call to `FILE` (read it with: ringfence audit FILE)")
	fs.StringVar(&mf.http, "http", "", "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	fs.StringVar(&mf.token, "token", "", "require this bearer `TOKEN` on every HTTP request (prefer --token-file: arguments are visible to other users)")
	fs.StringVar(&mf.tokenFile, "token-file", "", "read the bearer token from `FILE`")
	fs.DurationVar(&mf.gateTimeout, "gate-timeout", tools.DefaultGateTimeout, "how long to wait for a person's approval before answering gate-unavailable")
	return cmd
}

func serveMCP(cmd *cobra.Command, ld *loaded, mf mcpFlags) error {
	if err := mcpConflict(mf.http, mf.token, mf.tokenFile); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	token, err := mf.bearer()
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if mf.http != "" {
		if err := rfmcp.CheckListen(mf.http, token); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--http %s: %w; pass --token-file FILE (or --token TOKEN), or listen on 127.0.0.1", mf.http, err)}
		}
	}
	var aw *audit.Writer
	if mf.audit != "" {
		if aw, err = audit.Open(mf.audit); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--audit: %w", err)}
		}
		defer aw.Close()
		// The trail records what the sandbox did; the sandbox must not be
		// able to rewrite it, wherever the person chose to keep it.
		ld.config.Defaults.Entries = append(ld.config.Defaults.Entries,
			policy.Entry{Path: absUnder(ld.config.Root, mf.audit), Access: policy.Read})
	}
	sb, err := ringfence.New(ld.config)
	if err != nil {
		return refusal(err)
	}
	defer sb.Close()
	logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := rfmcp.NewServer(rfmcp.Config{
		Sandbox: sb, Audit: aw, Version: versionString(), Logger: logger,
		Tools: tools.Options{Classifier: ld.classifier, GateTimeout: mf.gateTimeout},
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if mf.http == "" {
		return srv.ServeStdio(ctx, readCloser(cmd.InOrStdin()), cmd.OutOrStdout())
	}
	return serveHTTP(ctx, cmd, srv, mf.http, token)
}

func serveHTTP(ctx context.Context, cmd *cobra.Command, srv *rfmcp.Server, addr, token string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	hs := &http.Server{Handler: srv.HTTPHandler(token), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(cmd.ErrOrStderr(), "ringfence: serving MCP on http://%s/ (token required: %v)\n", ln.Addr(), token != "")
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

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// bearer is the token from --token or --token-file (not both).
func (mf mcpFlags) bearer() (string, error) {
	if mf.token != "" && mf.tokenFile != "" {
		return "", errors.New("pass --token or --token-file, not both")
	}
	if mf.tokenFile == "" {
		return mf.token, nil
	}
	b, err := os.ReadFile(mf.tokenFile)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("--token-file %s: the file is empty", mf.tokenFile)
	}
	return tok, nil
}
