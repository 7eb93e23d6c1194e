//lint:file-ignore SA1019 v1alpha is deprecated, and still what older clients speak: serving it is the point

package reflection_test

import (
	"context"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	v1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	v1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/ringfence/ringfence/internal/sandboxd/reflection"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/testenv"
)

// serve starts a gRPC server on loopback with the process service and
// reflection, and returns a client connection to it.
func serve(t *testing.T) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	pb.RegisterProcessServiceServer(gs, pb.UnimplementedProcessServiceServer{})
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// stream is one reflection stream, v1 or v1alpha (translated to v1 here
// through the wire format, as the server does, so one test reads both).
type stream struct {
	t  *testing.T
	v1 v1.ServerReflection_ServerReflectionInfoClient
	al v1alpha.ServerReflection_ServerReflectionInfoClient
}

func open(t *testing.T, conn *grpc.ClientConn, version string) *stream {
	t.Helper()
	s := &stream{t: t}
	var err error
	if version == "v1" {
		s.v1, err = v1.NewServerReflectionClient(conn).ServerReflectionInfo(t.Context())
	} else {
		s.al, err = v1alpha.NewServerReflectionClient(conn).ServerReflectionInfo(t.Context())
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wire(t *testing.T, from, to proto.Message) {
	t.Helper()
	b, err := proto.Marshal(from)
	if err == nil {
		err = proto.Unmarshal(b, to)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// ask sends req and returns the response, or the stream's error.
func (s *stream) ask(req *v1.ServerReflectionRequest) (*v1.ServerReflectionResponse, error) {
	s.t.Helper()
	resp := &v1.ServerReflectionResponse{}
	if s.v1 != nil {
		if err := s.v1.Send(req); err != nil {
			return nil, err
		}
		return s.v1.Recv()
	}
	alReq := &v1alpha.ServerReflectionRequest{}
	wire(s.t, req, alReq)
	if err := s.al.Send(alReq); err != nil {
		return nil, err
	}
	alResp, err := s.al.Recv()
	if err != nil {
		return nil, err
	}
	wire(s.t, alResp, resp)
	return resp, nil
}

func (s *stream) must(req *v1.ServerReflectionRequest) *v1.ServerReflectionResponse {
	s.t.Helper()
	resp, err := s.ask(req)
	if err != nil {
		s.t.Fatalf("%v: %v", req, err)
	}
	if !proto.Equal(resp.GetOriginalRequest(), req) {
		s.t.Errorf("original request %v, want %v", resp.GetOriginalRequest(), req)
	}
	return resp
}

// files decodes a file descriptor response into FileDescriptorProtos.
func files(t *testing.T, resp *v1.ServerReflectionResponse) []*descriptorpb.FileDescriptorProto {
	t.Helper()
	var out []*descriptorpb.FileDescriptorProto
	for _, b := range resp.GetFileDescriptorResponse().GetFileDescriptorProto() {
		fdp := &descriptorpb.FileDescriptorProto{}
		if err := proto.Unmarshal(b, fdp); err != nil {
			t.Fatalf("a file descriptor that does not decode: %v", err)
		}
		out = append(out, fdp)
	}
	if len(out) == 0 {
		t.Fatalf("no file in %v", resp)
	}
	return out
}

func names(fdps []*descriptorpb.FileDescriptorProto) []string {
	var out []string
	for _, f := range fdps {
		out = append(out, f.GetName())
	}
	return out
}

func symbol(name string) *v1.ServerReflectionRequest {
	return &v1.ServerReflectionRequest{Host: "h", MessageRequest: &v1.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: name}}
}

// What a client such as grpcurl asks, on both protocol versions: the
// services, the file of a service with the files it imports (once per
// stream), a file by name, the file of a method and of a message, and
// what is not there — answered as not found, the stream going on.
func TestReflectionAnswersWhatClientsAsk(t *testing.T) {
	conn := serve(t)
	processFile := pb.File_process_v1_process_proto.Path()
	for _, version := range []string{"v1", "v1alpha"} {
		t.Run(version, func(t *testing.T) {
			s := open(t, conn, version)

			list := s.must(&v1.ServerReflectionRequest{MessageRequest: &v1.ServerReflectionRequest_ListServices{}})
			var services []string
			for _, svc := range list.GetListServicesResponse().GetService() {
				services = append(services, svc.GetName())
			}
			want := []string{"grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection", "process.v1.ProcessService"}
			if !slices.Equal(services, want) {
				t.Fatalf("services %v, want %v", services, want)
			}

			resp := s.must(symbol("process.v1.ProcessService"))
			if resp.GetValidHost() != "h" {
				t.Errorf("valid host %q", resp.GetValidHost())
			}
			first := files(t, resp)
			if got := names(first); len(got) != 2 || got[0] != processFile || got[1] != "google/protobuf/empty.proto" {
				t.Fatalf("files %v, want %s and its import", got, processFile)
			}
			// Together they resolve, and describe what the binary links.
			set, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: first})
			if err != nil {
				t.Fatalf("the files sent do not resolve: %v", err)
			}
			d, err := set.FindDescriptorByName("process.v1.ProcessService")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := methods(d.(protoreflect.ServiceDescriptor)), methods(pb.File_process_v1_process_proto.Services().Get(0)); !slices.Equal(got, want) {
				t.Errorf("methods %v, want %v", got, want)
			}
			if !proto.Equal(first[0], protodesc.ToFileDescriptorProto(pb.File_process_v1_process_proto)) {
				t.Errorf("the file sent is not the linked descriptor:\n%v", first[0])
			}

			// Asked again on this stream: the file, not its import again.
			if got := names(files(t, s.must(symbol("process.v1.ProcessService.Execute")))); !slices.Equal(got, []string{processFile}) {
				t.Errorf("second answer %v, want the file alone", got)
			}
			if got := names(files(t, s.must(symbol("process.v1.ExecuteRequest")))); !slices.Equal(got, []string{processFile}) {
				t.Errorf("a message's file %v", got)
			}
			byName := s.must(&v1.ServerReflectionRequest{MessageRequest: &v1.ServerReflectionRequest_FileByFilename{FileByFilename: "google/protobuf/empty.proto"}})
			if got := names(files(t, byName)); !slices.Equal(got, []string{"google/protobuf/empty.proto"}) {
				t.Errorf("file by name %v", got)
			}

			for _, req := range []*v1.ServerReflectionRequest{
				symbol("process.v1.NoSuchService"),
				{MessageRequest: &v1.ServerReflectionRequest_FileByFilename{FileByFilename: "no/such.proto"}},
				{MessageRequest: &v1.ServerReflectionRequest_FileContainingExtension{FileContainingExtension: &v1.ExtensionRequest{ContainingType: "process.v1.ExecuteRequest", ExtensionNumber: 100}}},
				{MessageRequest: &v1.ServerReflectionRequest_AllExtensionNumbersOfType{AllExtensionNumbersOfType: "process.v1.NoSuchMessage"}},
			} {
				resp := s.must(req)
				if e := resp.GetErrorResponse(); e == nil || codes.Code(e.GetErrorCode()) != codes.NotFound {
					t.Errorf("%v: %v, want NOT_FOUND", req, resp)
				}
			}
			ext := s.must(&v1.ServerReflectionRequest{MessageRequest: &v1.ServerReflectionRequest_AllExtensionNumbersOfType{AllExtensionNumbersOfType: "process.v1.ExecuteRequest"}})
			if r := ext.GetAllExtensionNumbersResponse(); r == nil || r.GetBaseTypeName() != "process.v1.ExecuteRequest" || len(r.GetExtensionNumber()) != 0 {
				t.Errorf("extension numbers: %v", ext)
			}

			// A request of no known kind ends the stream.
			if _, err := s.ask(&v1.ServerReflectionRequest{}); status.Code(err) != codes.InvalidArgument {
				t.Errorf("an empty request: %v, want INVALID_ARGUMENT", err)
			}
		})
	}
}

func methods(sd protoreflect.ServiceDescriptor) []string {
	var out []string
	for i := range sd.Methods().Len() {
		m := sd.Methods().Get(i)
		out = append(out, string(m.Name())+"("+string(m.Input().FullName())+")"+string(m.Output().FullName()))
	}
	return out
}

// Every file the server could be asked for has its bytes: every linked
// file (one without a legacy Descriptor method would fail here; see the
// package doc's gaps).
func TestEveryLinkedFileHasItsDescriptor(t *testing.T) {
	conn := serve(t)
	s := open(t, conn, "v1")
	n := 0
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		n++
		resp := s.must(&v1.ServerReflectionRequest{MessageRequest: &v1.ServerReflectionRequest_FileByFilename{FileByFilename: fd.Path()}})
		if got := files(t, resp)[0]; got.GetName() != fd.Path() || !proto.Equal(got, protodesc.ToFileDescriptorProto(fd)) {
			t.Errorf("%s: sent %s, not the linked descriptor", fd.Path(), got.GetName())
		}
		return true
	})
	if n < 3 {
		t.Fatalf("only %d files linked", n)
	}
}

// The ringfence binary does not link protodesc (and the descriptor
// packages only it brings): their package initialisation is paid by every
// start of the binary, `ringfence run` included.
func TestBinaryLinksNoProtodesc(t *testing.T) {
	goBin, err := exec.LookPath("go")
	testenv.Need(t, "the go command", err)
	out, err := exec.CommandContext(context.Background(), goBin, "list", "-deps", "github.com/ringfence/ringfence/cmd/ringfence").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "google.golang.org/protobuf/reflect/protodesc", "google.golang.org/protobuf/types/descriptorpb",
			"google.golang.org/grpc/reflection":
			t.Errorf("cmd/ringfence links %s", pkg)
		}
	}
	if !strings.Contains(string(out), "github.com/ringfence/ringfence/internal/sandboxd/reflection\n") {
		t.Error("cmd/ringfence does not link this package: is reflection still served?")
	}
}
