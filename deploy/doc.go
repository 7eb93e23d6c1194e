// Package deploy holds no code: it is where the deployment files are
// checked. kubernetes/ has the agent-sandbox manifests (a SandboxTemplate
// running ringfence serve, a SandboxWarmPool, a NetworkPolicy), which
// manifests_test.go strictly decodes into the Kubernetes API types;
// ../Containerfile builds the image, which image_linux_test.go builds and
// runs with podman; healthcheck/ is the image's readiness probe.
// docs/kubernetes.md walks an operator through them.
package deploy
