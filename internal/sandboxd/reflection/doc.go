// Package reflection serves gRPC server reflection, v1 and v1alpha, so
// grpcurl and other clients can call `ringfence serve` without the .proto.
//
// It replaces google.golang.org/grpc/reflection, which builds each
// FileDescriptorProto through protobuf's protodesc package. Linking
// protodesc costs every start of the ringfence binary — `ringfence run`
// included — its package initialisation (protodesc, descriptorpb,
// gofeaturespb: ≈2 ms and ≈90 page faults on the PVM host), for a service
// only `serve` uses. The bytes a client needs are already in the binary:
// each generated file's raw descriptor, as protoc wrote it, which the
// generated types still return (gzipped) through their legacy
// Descriptor methods. This package serves those, found through the global
// registries the generated code fills. TestBinaryLinksNoProtodesc keeps
// protodesc out.
//
// The protocol, as grpc-go serves it: list_services names every service
// registered on the server; file_by_filename, file_containing_symbol and
// file_containing_extension answer the file and, transitively, the files
// it imports that this stream has not been sent yet (the file asked for
// is always sent); all_extension_numbers_of_type lists a message's known
// extensions. What is not found is an error_response (NOT_FOUND) and the
// stream goes on; a request with no known kind ends the stream
// (INVALID_ARGUMENT). v1alpha's messages are v1's with another package
// name — the same fields and numbers — so a v1alpha stream is translated
// through the wire format and answered by the same code.
//
// # Threat model
//
// Reflection tells a client what the server's API is, which the API's
// public definition says anyway; it reads nothing but the binary's own
// descriptors, and the authentication interceptors of `serve --token` apply
// to it as to every other method.
//
// # Gaps
//
// A file whose generated code has no legacy Descriptor method to read its
// bytes from — one with neither a message nor an enum, or one generated
// with protoc-gen-go's opaque API (edition 2024's default) — is reported
// not found, and so is every file that imports it. None is linked today;
// TestEveryLinkedFileHasItsDescriptor fails the day one is.
package reflection
