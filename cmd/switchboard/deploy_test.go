package main

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// yamlBlocks are the ```yaml blocks of a Markdown file.
func yamlBlocks(t *testing.T, md string) []string {
	t.Helper()
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```yaml\n(.*?)^```").FindAllStringSubmatch(md, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// k8sObject is what TestDeployYAML reads of a Kubernetes object.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	StringData map[string]string `yaml:"stringData"`
	Data       map[string]string `yaml:"data"`
	Spec       struct {
		// Deployment
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				SecurityContext struct {
					RunAsNonRoot bool `yaml:"runAsNonRoot"`
					RunAsUser    int  `yaml:"runAsUser"`
				} `yaml:"securityContext"`
				Containers []k8sContainer `yaml:"containers"`
				Volumes    []struct {
					Name      string `yaml:"name"`
					ConfigMap *struct {
						Name string `yaml:"name"`
					} `yaml:"configMap"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
		// Service: its selector is a plain map.
		Ports []struct {
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
	// ServiceSelector is a Service's spec.selector (a Deployment's has matchLabels).
	ServiceSelector map[string]string `yaml:"-"`
}

type k8sContainer struct {
	Args  []string `yaml:"args"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	Env []struct {
		Name      string `yaml:"name"`
		ValueFrom struct {
			SecretKeyRef struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	LivenessProbe  k8sProbe `yaml:"livenessProbe"`
	ReadinessProbe k8sProbe `yaml:"readinessProbe"`
	VolumeMounts   []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type k8sProbe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

// TestDeployYAML: docs/deploy.md's Kubernetes example parses, and its parts fit: the
// Deployment's pods carry its selector's labels and the Service's; the secrets the
// container reads are the Secret's keys (the DSN, the token, the secret key); the
// ConfigMap's mcp.json is a config Switchboard loads, its DSN from the Secret's
// variable; the container's arguments are serve's flags, beyond loopback with the
// data in the mounted /data; the probes ask the open /healthz and /readyz at the
// named port the Service targets; it runs as the image's nonroot user.
func TestDeployYAML(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := yamlBlocks(t, string(md))
	if len(blocks) != 1 {
		t.Fatalf("docs/deploy.md has %d yaml blocks, want the one Kubernetes example", len(blocks))
	}
	objects := map[string]*k8sObject{}
	dec := yaml.NewDecoder(strings.NewReader(blocks[0]))
	for {
		var node yaml.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("docs/deploy.md's YAML: %v", err)
		}
		var o k8sObject
		if err := node.Decode(&o); err != nil {
			t.Fatalf("docs/deploy.md's YAML: %v", err)
		}
		if o.Kind == "Service" {
			var svc struct {
				Spec struct {
					Selector map[string]string `yaml:"selector"`
				} `yaml:"spec"`
			}
			if err := node.Decode(&svc); err != nil {
				t.Fatal(err)
			}
			o.ServiceSelector = svc.Spec.Selector
		}
		objects[o.Kind] = &o
	}
	for _, kind := range []string{"Secret", "ConfigMap", "Deployment", "Service"} {
		if objects[kind] == nil {
			t.Fatalf("docs/deploy.md's YAML has no %s (it has %v)", kind, slices.Collect(mapKeys(objects)))
		}
	}
	secret, cm, dep, svc := objects["Secret"], objects["ConfigMap"], objects["Deployment"], objects["Service"]
	pod := dep.Spec.Template
	labels := pod.Metadata.Labels
	for k, v := range dep.Spec.Selector.MatchLabels {
		if labels[k] != v {
			t.Errorf("the Deployment's selector %s=%s is not its pods' label (%v)", k, v, labels)
		}
	}
	for k, v := range svc.ServiceSelector {
		if labels[k] != v {
			t.Errorf("the Service's selector %s=%s is not the pods' label (%v)", k, v, labels)
		}
	}
	if len(svc.ServiceSelector) == 0 {
		t.Errorf("the Service selects no pods")
	}
	if sc := pod.Spec.SecurityContext; !sc.RunAsNonRoot || sc.RunAsUser != 65532 {
		t.Errorf("the pods run as %+v, want the image's nonroot user 65532", sc)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]

	env := map[string]string{}
	for _, e := range c.Env {
		ref := e.ValueFrom.SecretKeyRef
		if ref.Name != secret.Metadata.Name || secret.StringData[ref.Key] == "" {
			t.Errorf("env %s reads %s/%s, which the Secret %s does not hold", e.Name, ref.Name, ref.Key, secret.Metadata.Name)
		}
		env[e.Name] = secret.StringData[ref.Key]
	}
	for _, v := range []string{tokenEnv, "SWITCHBOARD_SECRET_KEY", "PG_DSN"} {
		if env[v] == "" {
			t.Errorf("the container has no $%s from the Secret", v)
		}
	}

	// The arguments are serve's, as the binary parses them.
	a := &app{stdout: io.Discard, stderr: io.Discard}
	cmd, rest, err := a.rootCommand().Find(c.Args)
	if err != nil || cmd.Name() != "serve" {
		t.Fatalf("args %q: %v, want the serve command", c.Args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("args %q: %v", c.Args, err)
	}
	flag := func(name string) string { return cmd.Flags().Lookup(name).Value.String() }
	if host, _, _ := net.SplitHostPort(flag("addr")); host != "0.0.0.0" {
		t.Errorf("--addr %s: a pod must listen beyond loopback", flag("addr"))
	}
	if _, port, _ := net.SplitHostPort(flag("addr")); port != strconv.Itoa(c.Ports[0].ContainerPort) {
		t.Errorf("--addr %s, but the container port is %d", flag("addr"), c.Ports[0].ContainerPort)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	if mounts[flag("data-dir")] == "" {
		t.Errorf("--data-dir %s is not a mounted volume (%v)", flag("data-dir"), mounts)
	}
	cfgPath := flag("config")
	if cfgPath == "" {
		cfgPath = a.configPath // a persistent flag
	}
	dir, file := filepath.Split(cfgPath)
	vol := mounts[filepath.Clean(dir)]
	var fromCM bool
	for _, v := range pod.Spec.Volumes {
		if v.Name == vol && v.ConfigMap != nil && v.ConfigMap.Name == cm.Metadata.Name {
			fromCM = true
		}
	}
	if !fromCM || cm.Data[file] == "" {
		t.Fatalf("--config %s is not the ConfigMap's %s", cfgPath, file)
	}
	conf, err := config.Parse([]byte(cm.Data[file]), cfgPath, &config.Options{LookupEnv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}})
	if err != nil {
		t.Fatalf("the ConfigMap's %s: %v", file, err)
	}
	if conf.Settings.Sessions.Store != "postgres" || conf.Settings.Sessions.DSN != env["PG_DSN"] {
		t.Errorf("the config's sessions are %+v, want postgres at the Secret's DSN", conf.Settings.Sessions)
	}

	port := c.Ports[0].Name
	for probe, p := range map[string]k8sProbe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p.HTTPGet.Port != port {
			t.Errorf("the %s probe asks port %q, not the container's %q", probe, p.HTTPGet.Port, port)
		}
	}
	if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("probes at %s and %s, want /healthz and /readyz (open, and meant for them)", c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != port {
		t.Errorf("the Service targets %+v, want the container's port %q", svc.Spec.Ports, port)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
