package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/audit"
	rfmcp "github.com/ringfence/ringfence/internal/mcp"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/tools"
)

// maxReadBytesCeiling: one read_file result is held in memory and sent
// whole; past 1 GiB that is a mistake, not a setting.
const maxReadBytesCeiling = 1 << 30

// mcpFlags are the server's own flags, beside the shared sandbox flags.
type mcpFlags struct {
	audit, http, token, tokenFile, tokenOut, approverTokenFile string
	allowOrigins, allowHosts                                   []string
	processes                                                  bool
	gateTimeout                                                time.Duration
	maxReadBytes                                               int64
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
the streamable HTTP transport instead, never without a bearer token: every
request must send "Authorization: Bearer <token>". Without --token-file a random
token is generated into a new file only you can read (--token-out FILE, or a
private temporary directory), and its path is printed. ADDR is a loopback
address (127.0.0.1:8080; a port alone, 8080, listens on 127.0.0.1),
unix:/path/mcp.sock (a 0600 socket in a 0700 directory), or — only with
--token-file — any other address (0.0.0.0:8080 or :8080: every interface). Requests whose Host
is not a loopback name (or --allow-host), or whose Origin is not the server's
own (or --allow-origin), are refused: a web page cannot drive the server.

When a command needs approval, or a write falls outside what the policy allows,
the person at the client is asked through MCP elicitation (approve once, approve
for the session, decline). On stdio the client is the person's own. Over HTTP
anyone holding the token could ask, so approvals are asked only of sessions
opened with --approver-token-file's token (the person's client); any other
session cannot approve, and what needs approval is not run. A client that
cannot ask, or a person who does not answer within --gate-timeout, gets
gate-unavailable: nothing runs.

--audit FILE appends one JSON line per call; read it with ringfence audit FILE. The file is
read-only to the sandbox, even inside the workspace.`,
		Example: `  ringfence mcp --root .
  claude mcp add ringfence -- ringfence mcp --root .
  ringfence mcp --root ~/src/app --network loopback --audit ~/.ringfence-audit.jsonl
  ringfence mcp --http 127.0.0.1:8080 --token-out ~/.config/ringfence/mcp.token
  ringfence mcp --http unix:$XDG_RUNTIME_DIR/ringfence/mcp.sock
  ringfence mcp --http 127.0.0.1:8080 --token-file agent.token --approver-token-file person.token
  ringfence mcp --http 10.0.0.5:8080 --token-file ~/.config/ringfence/token`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ld, err := flags.loadFor(cmd)
			if err != nil {
				return err // an *exitError: 121 for a refused policy file, else 125
			}
			if !cmd.Flags().Changed("mount-path") {
				ld.config.MountPath = outcome.DefaultMountPath
			}
			return serveMCP(cmd, ld, mf)
		},
	}
	flags.register(cmd.Flags())
	fs := cmd.Flags()
	fs.StringVar(&mf.audit, "audit", "", "append one JSON line per tool call to `FILE` (read it with: ringfence audit FILE)")
	fs.StringVar(&mf.http, "http", "", "serve streamable HTTP on `ADDR` (127.0.0.1:8080, or unix:/path/mcp.sock) instead of stdio")
	fs.StringVar(&mf.token, "token", "", "refused: a token in the command line is visible to every local user (use --token-file)")
	_ = fs.MarkHidden("token")
	fs.StringVar(&mf.tokenFile, "token-file", "", "read the agent's bearer token from `FILE` (yours, mode 0600, at least 16 characters)")
	fs.StringVar(&mf.tokenOut, "token-out", "", "write the generated bearer token to `FILE` (created 0600; must not exist)")
	fs.StringVar(&mf.approverTokenFile, "approver-token-file", "", "the person's bearer token, from `FILE`: only sessions opened with it are asked for approvals over HTTP")
	fs.StringArrayVar(&mf.allowOrigins, "allow-origin", nil, "also accept requests from this browser `ORIGIN` (scheme://host[:port]; repeatable)")
	fs.StringArrayVar(&mf.allowHosts, "allow-host", nil, "also accept this `HOST` name in the Host header (for a non-loopback listener; repeatable)")
	fs.DurationVar(&mf.gateTimeout, "gate-timeout", tools.DefaultGateTimeout, "how long to wait for a person's approval before answering gate-unavailable")
	fs.Int64Var(&mf.maxReadBytes, "max-read-bytes", tools.DefaultMaxReadBytes, "the most bytes one read_file returns (and its default max_bytes); a larger file is refused, never cut: the model reads it in ranges")
	fs.BoolVar(&mf.processes, "processes", true, "run each MCP session's commands in one long-lived confined session (its /tmp, loopback, background processes) and serve write_stdin, list_processes and kill_process (linux backend; --processes=false: every run_command one-shot)")
	return cmd
}

func serveMCP(cmd *cobra.Command, ld *loaded, mf mcpFlags) error {
	if err := mcpConflict(mf.http, mf.token, mf.tokenFile); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if mf.maxReadBytes <= 0 || mf.maxReadBytes > maxReadBytesCeiling {
		return &exitError{code: exitUsage, err: fmt.Errorf("--max-read-bytes must be between 1 and %d (1 GiB), not %d", maxReadBytesCeiling, mf.maxReadBytes)}
	}
	var auth *httpAuth
	if mf.http != "" {
		mf.http = loopbackByDefault(mf.http)
		var err error
		if auth, err = prepareHTTP(mf, cmd.ErrOrStderr()); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		defer auth.removeAll()
		denySecrets(&ld.config.Defaults, auth.secrets)
	} else if mf.token != "" || mf.tokenFile != "" || mf.tokenOut != "" || mf.approverTokenFile != "" {
		return &exitError{code: exitUsage, err: errors.New("token flags are for --http; over stdio the client that started the server is the person's")}
	}
	var aw *audit.Writer
	if mf.audit != "" {
		var err error
		if aw, err = audit.Open(mf.audit); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--audit: %w", err)}
		}
		defer aw.Close()
		// The trail records what the sandbox did; the sandbox must not be
		// able to rewrite it, wherever the person chose to keep it — nor
		// rename its directory away and leave a forged one in its place.
		trail := absUnder(ld.config.Root, mf.audit)
		ld.config.Defaults.Entries = append(ld.config.Defaults.Entries, policy.Entry{Path: trail, Access: policy.Read})
		pinAncestors(&ld.config.Defaults, trail)
	}
	sb, err := ringfence.New(ld.config)
	if err != nil {
		return refusal(err)
	}
	defer sb.Close()
	logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := rfmcp.NewServer(rfmcp.Config{
		Sandbox: sb, Audit: aw, Version: versionString(), Logger: logger,
		// Sessions need the linux backend: elsewhere run_command stays
		// one-shot and the process tools are not served.
		Tools: tools.Options{Classifier: ld.classifier, GateTimeout: mf.gateTimeout, Processes: mf.processes && ringfence.SessionsOn(sb.Backend()), MaxReadBytes: mf.maxReadBytes},
	})
	parent := cmd.Context() // tests end the server by cancelling it
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if mf.http == "" {
		return srv.ServeStdio(ctx, readCloser(cmd.InOrStdin()), cmd.OutOrStdout())
	}
	return serveHTTP(ctx, cmd.ErrOrStderr(), srv, mf, auth)
}

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}
