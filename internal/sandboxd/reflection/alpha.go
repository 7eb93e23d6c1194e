//lint:file-ignore SA1019 v1alpha is deprecated, and still what older clients speak: serving it is the point

package reflection

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	v1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	v1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// registerAlpha serves v1alpha on s through srv.
func registerAlpha(s *grpc.Server, srv *server) {
	v1alpha.RegisterServerReflectionServer(s, alpha{srv})
}

// alpha serves v1alpha by translating each message to and from v1 through
// the wire format: the two packages' messages have the same fields.
type alpha struct{ s *server }

func (a alpha) ServerReflectionInfo(stream v1alpha.ServerReflection_ServerReflectionInfoServer) error {
	recv := func() (*v1.ServerReflectionRequest, error) {
		in, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		req := &v1.ServerReflectionRequest{}
		return req, convert(in, req)
	}
	send := func(resp *v1.ServerReflectionResponse) error {
		out := &v1alpha.ServerReflectionResponse{}
		if err := convert(resp, out); err != nil {
			return err
		}
		return stream.Send(out)
	}
	return a.s.serve(recv, send)
}

// convert copies from into to through the wire format.
func convert(from, to proto.Message) error {
	b, err := proto.Marshal(from)
	if err != nil {
		return status.Errorf(codes.Internal, "reflection: %v", err)
	}
	if err := proto.Unmarshal(b, to); err != nil {
		return status.Errorf(codes.Internal, "reflection: %v", err)
	}
	return nil
}
