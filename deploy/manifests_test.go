package deploy

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// The agent-sandbox CRDs (extensions.agents.x-k8s.io/v1beta1), mirrored
// from kubernetes-sigs/agent-sandbox's Go types for the fields they have,
// so a strict decode refuses any field the CRD does not have. The pod
// template itself is decoded into corev1 (and again as a Pod, through
// apimachinery's strict serializer, which matches names case-sensitively).
type sandboxTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		PodTemplate struct {
			Spec     corev1.PodSpec `json:"spec"`
			Metadata struct {
				Labels      map[string]string `json:"labels,omitempty"`
				Annotations map[string]string `json:"annotations,omitempty"`
			} `json:"metadata"`
		} `json:"podTemplate"`
		VolumeClaimTemplates    []json.RawMessage `json:"volumeClaimTemplates,omitempty"`
		Service                 *bool             `json:"service,omitempty"`
		NetworkPolicy           *json.RawMessage  `json:"networkPolicy,omitempty"`
		NetworkPolicyManagement string            `json:"networkPolicyManagement,omitempty"`
		EnvVarsInjectionPolicy  string            `json:"envVarsInjectionPolicy,omitempty"`
		VolumeClaimTemplatesPol string            `json:"volumeClaimTemplatesPolicy,omitempty"`
	} `json:"spec"`
}

type sandboxWarmPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Replicas           *int32 `json:"replicas,omitempty"`
		SandboxTemplateRef struct {
			Name string `json:"name"`
		} `json:"sandboxTemplateRef"`
		UpdateStrategy *json.RawMessage `json:"updateStrategy,omitempty"`
	} `json:"spec"`
}

const group = "extensions.agents.x-k8s.io/v1beta1"

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("kubernetes/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// strictPod decodes a pod spec as a Pod through apimachinery's strict
// serializer: unknown, duplicate or miscased fields fail.
func strictPod(t *testing.T, raw []byte) error {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	s := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Yaml: true, Strict: true})
	_, _, err := s.Decode(raw, nil, &corev1.Pod{})
	return err
}

func decodeTemplate(t *testing.T, raw []byte) (sandboxTemplate, error) {
	var st sandboxTemplate
	if err := yaml.UnmarshalStrict(raw, &st); err != nil {
		return st, err
	}
	// The same pod spec, as a Pod, through the case-sensitive strict path.
	var generic map[string]any
	if err := yaml.UnmarshalStrict(raw, &generic); err != nil {
		return st, err
	}
	spec := generic["spec"].(map[string]any)["podTemplate"].(map[string]any)["spec"]
	pod, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "x"}, "spec": spec})
	return st, strictPod(t, pod)
}

func TestSandboxTemplate(t *testing.T) {
	st, err := decodeTemplate(t, read(t, "sandboxtemplate.yaml"))
	if err != nil {
		t.Fatalf("strict decode: %v", err)
	}
	if st.APIVersion != group || st.Kind != "SandboxTemplate" || st.Name != "ringfence" {
		t.Fatalf("object %s %s %s", st.APIVersion, st.Kind, st.Name)
	}
	if st.Spec.NetworkPolicyManagement != "Unmanaged" {
		t.Error("networkpolicy.yaml is the policy: the template must not add the controller's")
	}
	pod := st.Spec.PodTemplate.Spec
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("automountServiceAccountToken must be false")
	}
	if pod.EnableServiceLinks == nil || *pod.EnableServiceLinks {
		t.Error("enableServiceLinks must be false")
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 ||
		psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext: %+v", psc)
	}
	if len(pod.Containers) != 1 || len(pod.InitContainers) != 0 {
		t.Fatalf("containers: %d (+%d init)", len(pod.Containers), len(pod.InitContainers))
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Privileged == nil || *sc.Privileged ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.Capabilities == nil ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
		t.Errorf("container securityContext: %+v", sc)
	}
	if len(c.Command) != 0 || len(c.Args) == 0 || c.Args[0] != "serve" || !slices.Contains(c.Args, "--root-dir=/workspace") ||
		!slices.Contains(c.Args, "--rest-port=8080") || !slices.Contains(c.Args, "--grpc-port=9090") {
		t.Errorf("args: %q", c.Args)
	}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--listen") {
			t.Errorf("%s: the server must stay on the pod's loopback", a)
		}
	}
	// Readiness asks /v1/health on the REST port the args give.
	rp := c.ReadinessProbe
	if rp == nil || rp.Exec == nil || !slices.Equal(rp.Exec.Command, []string{"/healthcheck", "http://127.0.0.1:8080/v1/health"}) {
		t.Errorf("readinessProbe: %+v", rp)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if mounts["workspace"] != "/workspace" || mounts["tmp"] != "/tmp" || len(mounts) != 2 {
		t.Errorf("mounts: %v", mounts)
	}
	for _, v := range pod.Volumes {
		if v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil {
			t.Errorf("volume %s: only bounded emptyDirs (no host paths, secrets or projected tokens)", v.Name)
		}
	}
	if len(pod.Volumes) != 2 {
		t.Errorf("volumes: %d", len(pod.Volumes))
	}
	if c.Resources.Limits.Memory().IsZero() || c.Resources.Limits.Cpu().IsZero() {
		t.Error("resource limits missing")
	}
	if pod.HostNetwork || pod.HostPID || pod.HostIPC {
		t.Error("host namespaces shared")
	}
}

// TestStrictDecodingRefuses proves the decode above is strict: the same
// template with one unknown, one duplicate or one miscased field fails.
func TestStrictDecodingRefuses(t *testing.T) {
	good := string(read(t, "sandboxtemplate.yaml"))
	for name, bad := range map[string]string{
		"unknown pod field":       strings.Replace(good, "      automountServiceAccountToken: false", "      automountServiceAccountToken: false\n      hostPid: true", 1),
		"unknown container field": strings.Replace(good, "          imagePullPolicy: IfNotPresent", "          imagePullPolicy: IfNotPresent\n          privilegd: true", 1),
		"unknown spec field":      strings.Replace(good, "  envVarsInjectionPolicy: Disallowed", "  envVarsInjectionPolicy: Disallowed\n  replicas: 3", 1),
		"duplicate field":         strings.Replace(good, "      enableServiceLinks: false", "      enableServiceLinks: false\n      enableServiceLinks: true", 1),
		"miscased field":          strings.Replace(good, "          imagePullPolicy: IfNotPresent", "          ImagePullPolicy: IfNotPresent", 1),
	} {
		if bad == good {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if _, err := decodeTemplate(t, []byte(bad)); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}

func TestSandboxWarmPool(t *testing.T) {
	var wp sandboxWarmPool
	if err := yaml.UnmarshalStrict(read(t, "sandboxwarmpool.yaml"), &wp); err != nil {
		t.Fatal(err)
	}
	if wp.APIVersion != group || wp.Kind != "SandboxWarmPool" || wp.Spec.SandboxTemplateRef.Name != "ringfence" ||
		wp.Spec.Replicas == nil || *wp.Spec.Replicas < 1 {
		t.Errorf("warm pool: %+v", wp)
	}
}

func TestNetworkPolicy(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := networkingv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	s := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Yaml: true, Strict: true})
	obj, _, err := s.Decode(read(t, "networkpolicy.yaml"), nil, nil)
	if err != nil {
		t.Fatalf("strict decode: %v", err)
	}
	np := obj.(*networkingv1.NetworkPolicy)
	st, err := decodeTemplate(t, read(t, "sandboxtemplate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range np.Spec.PodSelector.MatchLabels {
		if st.Spec.PodTemplate.Metadata.Labels[k] != v {
			t.Errorf("the policy selects %s=%s, which the template's pods do not carry", k, v)
		}
	}
	if len(np.Spec.PodSelector.MatchLabels) == 0 || !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{"Ingress", "Egress"}) ||
		len(np.Spec.Ingress) != 0 {
		t.Errorf("policy: %+v", np.Spec)
	}
	// No egress rule may reach the metadata server or the cluster's ranges
	// except DNS to kube-dns.
	for _, rule := range np.Spec.Egress {
		for _, peer := range rule.To {
			if peer.IPBlock == nil {
				if peer.PodSelector == nil || peer.PodSelector.MatchLabels["k8s-app"] != "kube-dns" {
					t.Errorf("egress to %+v", peer)
				}
				continue
			}
			if peer.IPBlock.CIDR == "0.0.0.0/0" {
				for _, must := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"} {
					if !slices.Contains(peer.IPBlock.Except, must) {
						t.Errorf("egress to 0.0.0.0/0 does not except %s", must)
					}
				}
			}
		}
	}
}
