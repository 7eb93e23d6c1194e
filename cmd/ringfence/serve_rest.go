package main

import (
	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/sandboxd"
)

// restSetup is what the REST API on --rest-port is built from.
type restSetup struct {
	Sandbox           *ringfence.Local // the confined workspace (its file operations go through the fence)
	Config            ringfence.Config // Root (host path), MountPath, Defaults (the deployment's policy)
	MetadataEnvPrefix string           // --metadata-env-prefix
}

// newRESTHandler builds the REST API (files, health, metadata: package
// internal/sandboxd/files) mounted on --rest-port; serve_files.go sets it.
// While it is nil (a build without that file), the REST port serves only
// /v1/health (sandboxd.Health), which still turns 503 on shutdown.
var newRESTHandler func(restSetup) (sandboxd.RESTHandler, error)
