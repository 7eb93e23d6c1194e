package remote

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"

	"github.com/ringfence/ringfence"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/policy"
)

// referenceLike answers as the reference daemon does: the standard
// messages and nothing of ringfence's (no trailer, no outcome header).
// Its "command" echoes its stdin and exits with the code in argv[1].
type referenceLike struct {
	pb.UnimplementedProcessServiceServer
	stdin chan []byte
}

func (r *referenceLike) Start(req *pb.StartRequest, st grpc.ServerStreamingServer[pb.StartResponse]) error {
	if err := st.Send(&pb.StartResponse{Event: &pb.StartResponse_Init{Init: &pb.InitEvent{ProcessId: 1}}}); err != nil {
		return err
	}
	for b := range r.stdin {
		if b == nil {
			break
		}
		if err := st.Send(&pb.StartResponse{Event: &pb.StartResponse_Stdout{Stdout: b}}); err != nil {
			return err
		}
	}
	code := int32(0)
	if argv := req.GetConfig().GetCommand(); len(argv) > 1 && argv[1] == "7" {
		code = 7
	}
	return st.Send(&pb.StartResponse{Event: &pb.StartResponse_Exit{Exit: &pb.ExitEvent{ExitCode: code}}})
}

func (r *referenceLike) WriteStdin(_ context.Context, req *pb.WriteStdinRequest) (*pb.WriteStdinResponse, error) {
	if req.GetEof() != nil {
		r.stdin <- nil
	} else {
		r.stdin <- append([]byte(nil), req.GetInput()...)
	}
	return &pb.WriteStdinResponse{}, nil
}

// redirectTo is where the reference-like REST server redirects
// /v1/files/redir (set by the test that checks redirects are not followed).
var redirectTo = "http://127.0.0.1:1"

func startReferenceLike(t *testing.T) (grpcAddr, restAddr string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	pb.RegisterProcessServiceServer(gs, &referenceLike{stdin: make(chan []byte, 16)})
	go gs.Serve(l)
	t.Cleanup(gs.Stop)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/files/redir":
			http.Redirect(w, r, redirectTo+"/v1/files/there", http.StatusTemporaryRedirect)
		case "/v1/files/secret":
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"code":"PERMISSION_DENIED","message":"no"}`)
		case "/v1/files/there":
			if r.Method == http.MethodPut {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			w.Header().Set("Content-Type", "application/octet-stream")
			io.WriteString(w, "content")
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"code":"NOT_FOUND","message":"not found"}`)
		}
	}))
	t.Cleanup(hs.Close)
	return l.Addr().String(), strings.TrimPrefix(hs.URL, "http://")
}

// Against a server without ringfence's extension, the client still works:
// the kind is judged from the exit code, the errors from the status alone;
// and a client that claims isolation refuses to take the server's word
// for what it never said.
func TestAgainstReferenceLikeServer(t *testing.T) {
	g, r := startReferenceLike(t)
	sb, err := New(Options{GRPC: g, REST: r})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	ctx := context.Background()
	res, err := sb.Exec(ctx, []string{"echo", "7"}, ringfence.ExecOptions{Stdin: strings.NewReader("hello\n")})
	if err != nil || res.Kind != ringfence.KindCommandFailure || res.ExitCode == nil || *res.ExitCode != 7 || res.Stdout != "hello\n" || res.Narration == "" {
		t.Fatalf("Exec: %+v %v", res, err)
	}
	res, err = sb.Exec(ctx, []string{"echo"}, ringfence.ExecOptions{})
	if err != nil || res.Kind != ringfence.KindSuccess || res.Backend != "" {
		t.Fatalf("Exec exit 0: %+v %v", res, err)
	}
	if got, err := sb.ReadFile(ctx, "there", 100); err != nil || string(got) != "content" {
		t.Fatalf("ReadFile: %q %v", got, err)
	}
	if err := sb.WriteFile(ctx, "there", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.ReadFile(ctx, "secret", 100); !errors.Is(err, policy.ErrDenied) {
		t.Fatalf("403 without an outcome: %v", err)
	}
	if _, err := sb.ReadFile(ctx, "gone", 100); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("404: %v", err)
	}
	claiming, err := New(Options{GRPC: g, REST: r, Isolation: ringfence.Isolation{Filesystem: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer claiming.Close()
	res, err = claiming.Exec(ctx, []string{"echo"}, ringfence.ExecOptions{})
	if !errors.Is(err, ErrClaimNotHeld) || res == nil {
		t.Fatalf("a claim the server cannot back: %+v %v", res, err)
	}
}

// A redirect is not followed: it would carry the request and its token to
// a place the caller never named.
func TestRedirectNotFollowed(t *testing.T) {
	var hit atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit.Store(true) }))
	defer elsewhere.Close()
	redirectTo = elsewhere.URL
	g, r := startReferenceLike(t)
	sb, err := New(Options{GRPC: g, REST: r, Token: "secret-token"})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if _, err := sb.ReadFile(context.Background(), "redir", 100); err == nil {
		t.Fatal("a redirected read succeeded")
	}
	if hit.Load() {
		t.Fatal("the client followed a redirect")
	}
}
