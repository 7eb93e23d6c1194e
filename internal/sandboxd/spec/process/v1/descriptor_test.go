package processv1

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/ringfence/ringfence/internal/testenv"
)

// TestWireContract checks the generated descriptor against the standard's
// wire contract (kubernetes-sigs/agent-sandbox
// packages/sandboxd/spec/process/v1/process.proto), name by name and
// number by number: a client generated from the standard's file must
// interoperate with this server.
func TestWireContract(t *testing.T) {
	fd := File_process_v1_process_proto
	if fd.Package() != "process.v1" || fd.Path() != "process/v1/process.proto" {
		t.Fatalf("package %q, path %q", fd.Package(), fd.Path())
	}
	svc := fd.Services().ByName("ProcessService")
	if svc == nil || svc.FullName() != "process.v1.ProcessService" || svc.Methods().Len() != 5 {
		t.Fatalf("service: %v", svc)
	}
	for _, m := range []struct {
		name, in, out string
		stream        bool
	}{
		{"Start", "StartRequest", "StartResponse", true},
		{"Execute", "ExecuteRequest", "ExecuteResponse", false},
		{"WriteStdin", "WriteStdinRequest", "WriteStdinResponse", false},
		{"SendSignal", "SendSignalRequest", "SendSignalResponse", false},
		{"ResizeTTY", "ResizeTTYRequest", "ResizeTTYResponse", false},
	} {
		md := svc.Methods().ByName(protoreflect.Name(m.name))
		if md == nil || string(md.Input().Name()) != m.in || string(md.Output().Name()) != m.out ||
			md.IsStreamingServer() != m.stream || md.IsStreamingClient() {
			t.Errorf("method %s: %v", m.name, md)
		}
	}
	en := fd.Enums().ByName("Signal")
	for name, num := range map[string]protoreflect.EnumNumber{
		"SIGNAL_UNSPECIFIED": 0, "SIGNAL_SIGINT": 2, "SIGNAL_SIGKILL": 9, "SIGNAL_SIGTERM": 15,
	} {
		if v := en.Values().ByName(protoreflect.Name(name)); v == nil || v.Number() != num {
			t.Errorf("enum value %s: %v", name, v)
		}
	}
	if en.Values().Len() != 4 {
		t.Errorf("Signal has %d values", en.Values().Len())
	}
	type field struct {
		name  string
		num   protoreflect.FieldNumber
		kind  protoreflect.Kind
		list  bool
		oneof string // "" none; the oneof's name (a proto3 optional's is synthetic)
		msg   string // the message type, for message fields
	}
	contract := map[string][]field{
		"PTY":           {{"cols", 1, protoreflect.Uint32Kind, false, "", ""}, {"rows", 2, protoreflect.Uint32Kind, false, "", ""}},
		"ProcessConfig": {{"command", 1, protoreflect.StringKind, true, "", ""}, {"env_vars", 2, protoreflect.MessageKind, false, "", "EnvVarsEntry"}, {"cwd", 3, protoreflect.StringKind, false, "_cwd", ""}},
		"StartRequest":  {{"config", 1, protoreflect.MessageKind, false, "", "ProcessConfig"}, {"pty", 2, protoreflect.MessageKind, false, "_pty", "PTY"}},
		"InitEvent":     {{"process_id", 1, protoreflect.Int32Kind, false, "", ""}},
		"ExitEvent":     {{"exit_code", 1, protoreflect.Int32Kind, false, "", ""}},
		"StartResponse": {{"init", 1, protoreflect.MessageKind, false, "event", "InitEvent"}, {"stdout", 2, protoreflect.BytesKind, false, "event", ""},
			{"stderr", 3, protoreflect.BytesKind, false, "event", ""}, {"exit", 4, protoreflect.MessageKind, false, "event", "ExitEvent"}},
		"ExecuteRequest":     {{"config", 1, protoreflect.MessageKind, false, "", "ProcessConfig"}},
		"ExecuteResponse":    {{"exit_code", 1, protoreflect.Int32Kind, false, "", ""}, {"stdout", 2, protoreflect.BytesKind, false, "", ""}, {"stderr", 3, protoreflect.BytesKind, false, "", ""}},
		"WriteStdinRequest":  {{"process_id", 1, protoreflect.Int32Kind, false, "", ""}, {"input", 2, protoreflect.BytesKind, false, "payload", ""}, {"eof", 3, protoreflect.MessageKind, false, "payload", "Empty"}},
		"WriteStdinResponse": nil,
		"SendSignalRequest":  {{"process_id", 1, protoreflect.Int32Kind, false, "", ""}, {"signal", 2, protoreflect.EnumKind, false, "", ""}},
		"SendSignalResponse": nil,
		"ResizeTTYRequest":   {{"process_id", 1, protoreflect.Int32Kind, false, "", ""}, {"cols", 2, protoreflect.Uint32Kind, false, "", ""}, {"rows", 3, protoreflect.Uint32Kind, false, "", ""}},
		"ResizeTTYResponse":  nil,
	}
	if got := fd.Messages().Len(); got != len(contract) {
		t.Errorf("%d messages, the contract has %d", got, len(contract))
	}
	for name, fields := range contract {
		md := fd.Messages().ByName(protoreflect.Name(name))
		if md == nil {
			t.Errorf("message %s missing", name)
			continue
		}
		if md.Fields().Len() != len(fields) {
			t.Errorf("%s has %d fields, the contract %d", name, md.Fields().Len(), len(fields))
		}
		for _, f := range fields {
			fdd := md.Fields().ByName(protoreflect.Name(f.name))
			if fdd == nil || fdd.Number() != f.num || fdd.Kind() != f.kind || fdd.IsList() != f.list {
				t.Errorf("%s.%s: %v", name, f.name, fdd)
				continue
			}
			oneof := ""
			if o := fdd.ContainingOneof(); o != nil {
				oneof = string(o.Name())
			}
			if oneof != f.oneof {
				t.Errorf("%s.%s: oneof %q, want %q", name, f.name, oneof, f.oneof)
			}
			if f.msg != "" && string(fdd.Message().Name()) != f.msg {
				t.Errorf("%s.%s: type %s, want %s", name, f.name, fdd.Message().Name(), f.msg)
			}
		}
	}
	env := fd.Messages().ByName("ProcessConfig").Fields().ByName("env_vars")
	if !env.IsMap() || env.MapKey().Kind() != protoreflect.StringKind || env.MapValue().Kind() != protoreflect.StringKind {
		t.Errorf("env_vars is not map<string,string>")
	}
}

// TestGeneratedMatchesProto compiles process.proto with protoc and checks
// that the committed generated code carries exactly that descriptor: the
// .proto and the Go code cannot drift apart (regenerate with go generate).
func TestGeneratedMatchesProto(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	testenv.Need(t, "protoc (Debian: protobuf-compiler)", err)
	out := filepath.Join(t.TempDir(), "set.pb")
	cmd := exec.Command(protoc, "-I", "../..", "--descriptor_set_out="+out, "process/v1/process.proto")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	var fromProto *descriptorpb.FileDescriptorProto
	for _, f := range set.File {
		if f.GetName() == "process/v1/process.proto" {
			fromProto = f
		}
	}
	if fromProto == nil {
		t.Fatal("protoc's set has no process/v1/process.proto")
	}
	fromProto.SourceCodeInfo = nil
	committed := protodesc.ToFileDescriptorProto(File_process_v1_process_proto)
	committed.SourceCodeInfo = nil
	if !proto.Equal(fromProto, committed) {
		t.Fatalf("the committed generated code does not match process.proto: run go generate ./internal/sandboxd/spec/\nproto:     %v\ncommitted: %v", fromProto, committed)
	}
}
