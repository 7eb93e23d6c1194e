package reflection

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	v1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// serviceLister is what reflection lists: the services registered on the
// server (*grpc.Server has it).
type serviceLister interface {
	GetServiceInfo() map[string]grpc.ServiceInfo
}

// Register serves reflection, v1 and v1alpha, on s, describing s's own
// services (and itself) from the global registries.
func Register(s *grpc.Server) {
	srv := &server{services: s, files: protoregistry.GlobalFiles, types: protoregistry.GlobalTypes}
	v1.RegisterServerReflectionServer(s, srv)
	registerAlpha(s, srv)
}

type server struct {
	v1.UnimplementedServerReflectionServer
	services serviceLister
	files    *protoregistry.Files
	types    *protoregistry.Types
	raws     sync.Map // path → the file's raw descriptor, unzipped once
}

// ServerReflectionInfo answers each request of the stream in turn.
func (s *server) ServerReflectionInfo(stream v1.ServerReflection_ServerReflectionInfoServer) error {
	return s.serve(stream.Recv, stream.Send)
}

// serve answers each request recv gives, through send, until the client
// ends the stream.
func (s *server) serve(recv func() (*v1.ServerReflectionRequest, error), send func(*v1.ServerReflectionResponse) error) error {
	sent := map[string]bool{}
	for {
		req, err := recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		resp, err := s.answer(req, sent)
		if err != nil {
			return err
		}
		if err := send(resp); err != nil {
			return err
		}
	}
}

// answer is the response to one request; sent holds the paths of the
// files this stream has been sent. The error ends the stream.
func (s *server) answer(req *v1.ServerReflectionRequest, sent map[string]bool) (*v1.ServerReflectionResponse, error) {
	resp := &v1.ServerReflectionResponse{ValidHost: req.GetHost(), OriginalRequest: req}
	var (
		fd  protoreflect.FileDescriptor
		err error
	)
	switch r := req.GetMessageRequest().(type) {
	case *v1.ServerReflectionRequest_ListServices:
		resp.MessageResponse = &v1.ServerReflectionResponse_ListServicesResponse{ListServicesResponse: s.list()}
		return resp, nil
	case *v1.ServerReflectionRequest_AllExtensionNumbersOfType:
		numbers, err := s.extensionNumbers(r.AllExtensionNumbersOfType)
		if err != nil {
			resp.MessageResponse = notFound(err)
			return resp, nil
		}
		resp.MessageResponse = &v1.ServerReflectionResponse_AllExtensionNumbersResponse{
			AllExtensionNumbersResponse: &v1.ExtensionNumberResponse{BaseTypeName: r.AllExtensionNumbersOfType, ExtensionNumber: numbers}}
		return resp, nil
	case *v1.ServerReflectionRequest_FileByFilename:
		fd, err = s.files.FindFileByPath(r.FileByFilename)
	case *v1.ServerReflectionRequest_FileContainingSymbol:
		var d protoreflect.Descriptor
		if d, err = s.files.FindDescriptorByName(protoreflect.FullName(r.FileContainingSymbol)); err == nil {
			fd = d.ParentFile()
		}
	case *v1.ServerReflectionRequest_FileContainingExtension:
		x := r.FileContainingExtension
		var xt protoreflect.ExtensionType
		if xt, err = s.types.FindExtensionByNumber(protoreflect.FullName(x.GetContainingType()), protoreflect.FieldNumber(x.GetExtensionNumber())); err == nil {
			fd = xt.TypeDescriptor().ParentFile()
		}
	default:
		return nil, status.Errorf(codes.InvalidArgument, "reflection: a request of no known kind (%T)", r)
	}
	var files [][]byte
	if err == nil {
		files, err = s.withImports(fd, sent)
	}
	if err != nil {
		resp.MessageResponse = notFound(err)
		return resp, nil
	}
	resp.MessageResponse = &v1.ServerReflectionResponse_FileDescriptorResponse{
		FileDescriptorResponse: &v1.FileDescriptorResponse{FileDescriptorProto: files}}
	return resp, nil
}

func notFound(err error) *v1.ServerReflectionResponse_ErrorResponse {
	return &v1.ServerReflectionResponse_ErrorResponse{
		ErrorResponse: &v1.ErrorResponse{ErrorCode: int32(codes.NotFound), ErrorMessage: err.Error()}}
}

// list names the server's services, sorted.
func (s *server) list() *v1.ListServiceResponse {
	info := s.services.GetServiceInfo()
	names := make([]string, 0, len(info))
	for name := range info {
		names = append(names, name)
	}
	slices.Sort(names)
	out := &v1.ListServiceResponse{}
	for _, name := range names {
		out.Service = append(out.Service, &v1.ServiceResponse{Name: name})
	}
	return out
}

// extensionNumbers lists the known extensions of the message named.
func (s *server) extensionNumbers(name string) ([]int32, error) {
	full := protoreflect.FullName(name)
	if _, err := s.types.FindMessageByName(full); err != nil {
		return nil, err
	}
	var numbers []int32
	s.types.RangeExtensionsByMessage(full, func(xt protoreflect.ExtensionType) bool {
		numbers = append(numbers, int32(xt.TypeDescriptor().Number()))
		return true
	})
	slices.Sort(numbers)
	return numbers, nil
}

// withImports is fd's raw descriptor followed by those of the files it
// imports, transitively, that sent does not hold; it adds them all to
// sent. fd itself is always included: a client may ask twice.
func (s *server) withImports(fd protoreflect.FileDescriptor, sent map[string]bool) ([][]byte, error) {
	if fd.IsPlaceholder() {
		return nil, fmt.Errorf("reflection: %s is not linked", fd.Path())
	}
	var out [][]byte
	now := map[string]bool{} // sent by this answer: marked once it is whole
	queue := []protoreflect.FileDescriptor{fd}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if f.IsPlaceholder() || now[f.Path()] || (f != fd && sent[f.Path()]) {
			continue
		}
		raw, err := s.raw(f)
		if err != nil {
			return nil, err
		}
		now[f.Path()] = true
		out = append(out, raw)
		imports := f.Imports()
		for i := range imports.Len() {
			queue = append(queue, imports.Get(i).FileDescriptor)
		}
	}
	for path := range now {
		sent[path] = true
	}
	return out, nil
}

// legacyMessage and legacyEnum are the generated types' legacy methods
// that return their file's raw descriptor, gzipped.
type legacyMessage interface{ Descriptor() ([]byte, []int) }
type legacyEnum interface{ EnumDescriptor() ([]byte, []int) }

// raw is the serialized FileDescriptorProto of f as protoc wrote it, read
// through the legacy method of one of its generated messages or enums.
func (s *server) raw(f protoreflect.FileDescriptor) ([]byte, error) {
	if b, ok := s.raws.Load(f.Path()); ok {
		return b.([]byte), nil
	}
	gz := s.gzipped(f)
	if gz == nil {
		return nil, fmt.Errorf("reflection: no generated type of %s carries its descriptor", f.Path())
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("reflection: the descriptor of %s: %w", f.Path(), err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("reflection: the descriptor of %s: %w", f.Path(), err)
	}
	s.raws.Store(f.Path(), b)
	return b, nil
}

// gzipped is f's gzipped raw descriptor from the first of its top-level
// messages or enums whose generated type has the legacy method, or nil.
func (s *server) gzipped(f protoreflect.FileDescriptor) []byte {
	msgs := f.Messages()
	for i := range msgs.Len() {
		mt, err := s.types.FindMessageByName(msgs.Get(i).FullName())
		if err != nil {
			continue
		}
		if m, ok := mt.New().Interface().(legacyMessage); ok {
			gz, _ := m.Descriptor()
			return gz
		}
	}
	enums := f.Enums()
	for i := range enums.Len() {
		et, err := s.types.FindEnumByName(enums.Get(i).FullName())
		if err != nil {
			continue
		}
		if e, ok := et.New(0).(legacyEnum); ok {
			gz, _ := e.EnumDescriptor()
			return gz
		}
	}
	return nil
}
