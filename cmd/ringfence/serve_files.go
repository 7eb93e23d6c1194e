package main

import (
	"os"

	"github.com/ringfence/ringfence/internal/sandboxd"
	"github.com/ringfence/ringfence/internal/sandboxd/files"
)

// The REST API on --rest-port: files through the workspace fence,
// /v1/health, /v1/metadata (internal/sandboxd/files).
func init() {
	newRESTHandler = func(s restSetup) (sandboxd.RESTHandler, error) {
		return files.NewHandler(files.Options{Root: s.Config.Root, Workspace: s.Sandbox.Workspace(),
			MetadataEnvPrefix: s.MetadataEnvPrefix, Environ: os.Environ})
	}
}
