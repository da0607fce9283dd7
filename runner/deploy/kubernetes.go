package deploy

import (
	"bytes"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// The Kubernetes objects, as far as the manifest uses them: field names
// and nesting are the API's (core/v1 Service and Pod, batch/v1 Job), which
// the package's test checks by decoding the manifest strictly into the
// API's own types.
type (
	k8sObject struct {
		APIVersion string      `yaml:"apiVersion"`
		Kind       string      `yaml:"kind"`
		Metadata   k8sMetadata `yaml:"metadata"`
		Spec       any         `yaml:"spec"`
	}
	k8sMetadata struct {
		Name      string            `yaml:"name,omitempty"`
		Namespace string            `yaml:"namespace,omitempty"`
		Labels    map[string]string `yaml:"labels,omitempty"`
	}
	k8sServiceSpec struct {
		ClusterIP                string            `yaml:"clusterIP"`
		PublishNotReadyAddresses bool              `yaml:"publishNotReadyAddresses"`
		Selector                 map[string]string `yaml:"selector"`
		Ports                    []k8sServicePort  `yaml:"ports"`
	}
	k8sServicePort struct {
		Name       string `yaml:"name"`
		Protocol   string `yaml:"protocol"`
		Port       int    `yaml:"port"`
		TargetPort int    `yaml:"targetPort"`
	}
	k8sJobSpec struct {
		CompletionMode       string         `yaml:"completionMode"`
		Completions          int            `yaml:"completions"`
		Parallelism          int            `yaml:"parallelism"`
		BackoffLimitPerIndex int            `yaml:"backoffLimitPerIndex"`
		MaxFailedIndexes     int            `yaml:"maxFailedIndexes"`
		Template             k8sPodTemplate `yaml:"template"`
	}
	k8sPodTemplate struct {
		Metadata k8sMetadata `yaml:"metadata"`
		Spec     k8sPodSpec  `yaml:"spec"`
	}
	k8sPodSpec struct {
		RestartPolicy string         `yaml:"restartPolicy"`
		Containers    []k8sContainer `yaml:"containers"`
		Volumes       []k8sVolume    `yaml:"volumes,omitempty"`
	}
	k8sContainer struct {
		Name         string           `yaml:"name"`
		Image        string           `yaml:"image"`
		Command      []string         `yaml:"command,omitempty"`
		Args         []string         `yaml:"args,omitempty"`
		Env          []k8sEnv         `yaml:"env,omitempty"`
		Ports        []k8sPort        `yaml:"ports,omitempty"`
		VolumeMounts []k8sVolumeMount `yaml:"volumeMounts,omitempty"`
	}
	k8sEnv struct {
		Name      string `yaml:"name"`
		ValueFrom struct {
			SecretKeyRef struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	}
	k8sPort struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
		Protocol      string `yaml:"protocol"`
	}
	k8sVolumeMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly,omitempty"`
	}
	k8sVolume struct {
		Name     string   `yaml:"name"`
		EmptyDir struct{} `yaml:"emptyDir"`
	}
)

// Labels of every object; the Service selects the coordinator's.
func (s *Spec) labels(component string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      "searchbench",
		"app.kubernetes.io/instance":  s.Name,
		"app.kubernetes.io/component": component,
	}
}

// Kubernetes returns the manifest: the coordinator's headless Service and
// Pod, and the shards' Indexed Job, as one multi-document YAML file.
//
// The shards are an Indexed Job (completionMode Indexed, parallelism =
// completions = N): Kubernetes gives each pod its index in
// JOB_COMPLETION_INDEX, which `--shards N` reads. A shard is never run
// twice (backoffLimitPerIndex 0: a retried shard would join a run already
// under way), and one failed shard does not end the others
// (maxFailedIndexes N; with the plain backoffLimit the Job controller
// would delete the running pods at the first failure, and the merged
// result would lose every shard instead of one). Both fields need
// Kubernetes 1.29 or newer.
//
// The coordinator writes the merged result to an emptyDir volume. It exits
// when the result is written; the pod's second container, "results", keeps
// the pod (and the volume) alive for `kubectl cp` until the manifest is
// deleted. It runs `sleep infinity`, and kubectl cp runs tar, so the image
// needs both besides searchbench (a Debian slim base; see the README).
func (s *Spec) Kubernetes() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	port := []k8sPort{{Name: "coordinator", ContainerPort: s.Port, Protocol: "TCP"}}
	mount := k8sVolumeMount{Name: "results", MountPath: ResultsDir}
	readOnly := mount
	readOnly.ReadOnly = true
	coordLabels := s.labels("coordinator")
	meta := func(name, component string) k8sMetadata {
		return k8sMetadata{Name: name, Namespace: s.Namespace, Labels: s.labels(component)}
	}

	service := k8sObject{APIVersion: "v1", Kind: "Service", Metadata: meta(s.coordinatorName(), "coordinator"),
		Spec: k8sServiceSpec{
			ClusterIP: "None", // headless: the name resolves to the pod itself
			// The shards may start first; the name must resolve as soon as
			// the pod has an address, not once it is Ready.
			PublishNotReadyAddresses: true,
			Selector:                 coordLabels,
			Ports:                    []k8sServicePort{{Name: "coordinator", Protocol: "TCP", Port: s.Port, TargetPort: s.Port}},
		}}
	coordinator := k8sObject{APIVersion: "v1", Kind: "Pod", Metadata: meta(s.coordinatorName(), "coordinator"),
		Spec: k8sPodSpec{
			RestartPolicy: "Never",
			Containers: []k8sContainer{
				{Name: "coordinator", Image: s.Image, Args: s.coordinatorArgs(), Ports: port, VolumeMounts: []k8sVolumeMount{mount}},
				{Name: "results", Image: s.Image, Command: []string{"sleep", "infinity"}, VolumeMounts: []k8sVolumeMount{readOnly}},
			},
			Volumes: []k8sVolume{{Name: "results"}},
		}}
	shard := k8sContainer{Name: "shard", Image: s.Image, Args: s.shardArgs()}
	for _, c := range credentials {
		for _, e := range s.Secrets {
			if e == c.Env {
				var env k8sEnv
				env.Name = c.Env
				env.ValueFrom.SecretKeyRef.Name = s.SecretName()
				env.ValueFrom.SecretKeyRef.Key = c.Key
				shard.Env = append(shard.Env, env)
			}
		}
	}
	job := k8sObject{APIVersion: "batch/v1", Kind: "Job", Metadata: meta(s.Name+"-shards", "shard"),
		Spec: k8sJobSpec{
			CompletionMode: "Indexed", Completions: s.Shards, Parallelism: s.Shards,
			BackoffLimitPerIndex: 0, MaxFailedIndexes: s.Shards,
			Template: k8sPodTemplate{
				Metadata: k8sMetadata{Labels: s.labels("shard")},
				Spec:     k8sPodSpec{RestartPolicy: "Never", Containers: []k8sContainer{shard}},
			},
		}}

	var b bytes.Buffer
	fmt.Fprintf(&b, "# searchbench on Kubernetes: %d shards and their coordinator (generated by `searchbench deploy kubernetes`).\n", s.Shards)
	b.WriteString("# kubectl apply -f FILE; the merged result is in the coordinator pod's " + ResultsDir + " (kubectl cp, container results).\n")
	if cmd := s.SecretCommand(); cmd != "" {
		b.WriteString("# The shards' credentials come from a Secret made beforehand, not from this file:\n#   " + cmd + "\n")
	}
	if err := encode(&b, service, coordinator, job); err != nil {
		return nil, fmt.Errorf("kubernetes manifest: %w", err)
	}
	return b.Bytes(), nil
}

// encode writes docs as YAML documents (separated by ---), indented by
// two spaces as Kubernetes and Compose files usually are.
func encode(w io.Writer, docs ...any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	return enc.Close()
}
