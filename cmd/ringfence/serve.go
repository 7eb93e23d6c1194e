package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/sandboxd"
	"github.com/ringfence/ringfence/internal/sandboxd/process"
	"github.com/ringfence/ringfence/outcome"
)

// serveFlags are serve's own flags (the agent-sandbox runtime's, and the
// listening rules), beside the shared sandbox flags.
type serveFlags struct {
	grpcPort, restPort, chunkSize, maxProcs int
	rootDir, metaPrefix, listen, tokenFile  string
	tlsCert, tlsKey, tlsClientCA            string
	shutdownTimeout, idleTimeout            time.Duration
}

func newServeCmd() *cobra.Command {
	var flags sandboxFlags
	var sf serveFlags
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Serve the agent-sandbox runtime API (kubernetes-sigs/agent-sandbox) with every process confined",
		Long: `serve speaks the runtime API of kubernetes-sigs/agent-sandbox (KEP-539.2,
"sandboxd"), so a pod scheduled by that project runs ringfence as its runtime:
the gRPC process.v1.ProcessService (Start, Execute, WriteStdin, SendSignal,
ResizeTTY; server reflection on) on --grpc-port and the REST API on --rest-port.

Every process runs confined, under the policy the flags give, in one ringfence
session. On the linux backend processes share one view, one private /tmp and
one loopback, so a server started by one call answers the next; on landlock
(no namespaces, e.g. a pod under RuntimeDefault) each process is its own
confined run sharing only $TMPDIR (reported partial). Stdin and terminals
work on both. A cwd outside --root-dir is PERMISSION_DENIED. ringfence's
outcome of each process (kind, violations, narration) is sent as gRPC trailing
metadata (ringfence-kind, ringfence-outcome-bin); the standard messages are
unchanged.

Both ports listen on 127.0.0.1. --listen HOST serves elsewhere (0.0.0.0: every
interface) only with --token-file (every call but /v1/health must send
"authorization: Bearer TOKEN") or mutual TLS (--tls-cert, --tls-key and
--tls-client-ca). On SIGTERM or SIGINT, health turns 503, every process gets
SIGTERM and, --shutdown-timeout later, SIGKILL.`,
		Example: `  ringfence serve --root-dir /workspace
  ringfence serve --root-dir /tmp/ws --grpc-port 9090 --rest-port 8080 --network loopback
  ringfence serve --root-dir /workspace --listen 0.0.0.0 --token-file /var/run/ringfence/token`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("root") {
				return &exitError{code: exitUsage, err: errors.New("serve takes --root-dir (the agent-sandbox flag), not --root")}
			}
			if err := sf.check(); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			// The root is created if missing, as the standard's daemon does.
			if err := os.MkdirAll(sf.rootDir, 0o755); err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("--root-dir: %w", err)}
			}
			flags.root = sf.rootDir
			ld, err := flags.loadFor(cmd)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("mount-path") {
				ld.config.MountPath = outcome.DefaultMountPath
			}
			return runServe(cmd, ld, sf)
		},
	}
	flags.register(cmd.Flags())
	_ = cmd.Flags().MarkHidden("root")
	fs := cmd.Flags()
	fs.IntVar(&sf.grpcPort, "grpc-port", 9090, "port of the gRPC ProcessService (0: any free port)")
	fs.IntVar(&sf.restPort, "rest-port", 8080, "port of the REST API (0: any free port)")
	fs.StringVar(&sf.rootDir, "root-dir", "/workspace", "the sandbox root: the workspace every process works in and every file operation is confined to (created if missing)")
	fs.StringVar(&sf.metaPrefix, "metadata-env-prefix", "SANDBOX_", "environment variables with this prefix are served on /v1/metadata (never credential-looking names)")
	fs.DurationVar(&sf.shutdownTimeout, "shutdown-timeout", 10*time.Second, "on SIGTERM, how long processes have between SIGTERM and SIGKILL")
	fs.DurationVar(&sf.idleTimeout, "http-idle-timeout", 60*time.Second, "close idle HTTP keep-alive connections after this long")
	fs.IntVar(&sf.chunkSize, "stream-chunk-size", process.DefaultChunkSize, "most bytes of output in one Start event")
	fs.IntVar(&sf.maxProcs, "max-processes", process.DefaultMaxProcesses, "processes running at once")
	fs.StringVar(&sf.listen, "listen", "127.0.0.1", "`HOST` both ports listen on; other than loopback only with --token-file or mutual TLS")
	fs.StringVar(&sf.tokenFile, "token-file", "", "require the bearer token in `FILE` (yours, mode 0600) on every call but /v1/health")
	fs.StringVar(&sf.tlsCert, "tls-cert", "", "serve TLS with this certificate `FILE` (PEM)")
	fs.StringVar(&sf.tlsKey, "tls-key", "", "the TLS private key `FILE` (PEM)")
	fs.StringVar(&sf.tlsClientCA, "tls-client-ca", "", "require client certificates signed by the CAs in `FILE` (PEM): mutual TLS")
	return cmd
}

// check refuses what cannot be served safely or at all.
func (sf *serveFlags) check() error {
	for _, p := range []struct {
		name string
		v    int
	}{{"--grpc-port", sf.grpcPort}, {"--rest-port", sf.restPort}} {
		if p.v < 0 || p.v > 65535 {
			return fmt.Errorf("%s must be 0-65535 (got %d)", p.name, p.v)
		}
	}
	if sf.grpcPort == sf.restPort && sf.grpcPort != 0 {
		return fmt.Errorf("--grpc-port and --rest-port must differ (both %d)", sf.grpcPort)
	}
	if sf.rootDir == "" {
		return errors.New("--root-dir must name a directory")
	}
	if sf.shutdownTimeout < 0 || sf.chunkSize <= 0 || sf.maxProcs <= 0 {
		return errors.New("--shutdown-timeout, --stream-chunk-size and --max-processes must be positive")
	}
	if (sf.tlsCert == "") != (sf.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if sf.tlsClientCA != "" && sf.tlsCert == "" {
		return errors.New("--tls-client-ca needs --tls-cert and --tls-key")
	}
	mutual := sf.tlsClientCA != ""
	if !isLoopbackHost(sf.listen) && sf.tokenFile == "" && !mutual {
		return fmt.Errorf("--listen %s is reachable from other machines: pass --token-file FILE or mutual TLS (--tls-cert, --tls-key, --tls-client-ca), or listen on 127.0.0.1", sf.listen)
	}
	return nil
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func runServe(cmd *cobra.Command, ld *loaded, sf serveFlags) error {
	var token string
	var secrets []string
	if sf.tokenFile != "" {
		var err error
		if token, err = readToken("--token-file", sf.tokenFile); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		secrets = append(secrets, absPath(sf.tokenFile))
	}
	tlsConf, err := sf.tlsConfig()
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if sf.tlsKey != "" {
		secrets = append(secrets, absPath(sf.tlsKey))
	}
	// A command that read the token or the key could call the server as
	// its client: the sandbox is denied both.
	denySecrets(&ld.config.Defaults, secrets)
	sb, err := ringfence.New(ld.config)
	if err != nil {
		return refusal(err)
	}
	defer sb.Close()
	ps, err := process.New(process.Options{Sandbox: sb, Root: ld.config.Root, MountPath: ld.config.MountPath,
		ChunkSize: sf.chunkSize, MaxProcesses: sf.maxProcs, Timeout: ld.config.Timeout})
	if err != nil {
		return &exitError{code: exitUnavailable, err: err}
	}
	parent := cmd.Context() // tests end the server by cancelling it
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := ps.Warm(ctx); err != nil {
		return &exitError{code: exitUnavailable, err: err}
	}
	var rest sandboxd.RESTHandler
	if newRESTHandler != nil {
		if rest, err = newRESTHandler(restSetup{Sandbox: sb, Config: ld.config, MetadataEnvPrefix: sf.metaPrefix}); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	gl, err := net.Listen("tcp", net.JoinHostPort(sf.listen, strconv.Itoa(sf.grpcPort)))
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("--grpc-port: %w", err)}
	}
	rl, err := net.Listen("tcp", net.JoinHostPort(sf.listen, strconv.Itoa(sf.restPort)))
	if err != nil {
		gl.Close()
		return &exitError{code: exitUsage, err: fmt.Errorf("--rest-port: %w", err)}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "ringfence serve: process.v1.ProcessService on %s (gRPC), REST on %s; root %s; backend %s\n",
		gl.Addr(), rl.Addr(), ld.config.Root, sb.Backend())
	return sandboxd.Serve(ctx, sandboxd.Config{GRPCListener: gl, RESTListener: rl, Process: ps, REST: rest,
		Token: token, TLS: tlsConf, ShutdownTimeout: sf.shutdownTimeout, IdleTimeout: sf.idleTimeout,
		Log: cmd.ErrOrStderr()})
}

// tlsConfig loads --tls-cert/--tls-key (and --tls-client-ca: clients must
// present a certificate it signed), or returns nil for plaintext.
func (sf *serveFlags) tlsConfig() (*tls.Config, error) {
	if sf.tlsCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(sf.tlsCert, sf.tlsKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
	if sf.tlsClientCA != "" {
		pem, err := os.ReadFile(sf.tlsClientCA)
		if err != nil {
			return nil, fmt.Errorf("--tls-client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-client-ca %s: no PEM certificate in it", sf.tlsClientCA)
		}
		c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return c, nil
}
