// Package spec holds ringfence's protobuf definitions of the agent-sandbox
// runtime API and the Go code generated from them (committed; regenerate
// with `go generate ./internal/sandboxd/spec/` after installing protoc and
// the plugins at the versions below). process/v1's descriptor test checks
// the committed code against the .proto and against the wire contract.
package spec

// Plugins: go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//          go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
//go:generate protoc -I . --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative process/v1/process.proto
