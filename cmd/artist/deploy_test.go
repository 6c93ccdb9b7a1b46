package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestMPIJobManifest checks deploy/mpijob.yaml against what artist needs:
// an MPIJob of the v2beta1 API whose mpirun starts one rank per worker
// slot, running artist train on a config the image holds, and workers
// that share the run folder's volume.
func TestMPIJobManifest(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "mpijob.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type container struct {
		Command      []string `yaml:"command"`
		VolumeMounts []struct {
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
	type replica struct {
		Replicas int `yaml:"replicas"`
		Template struct {
			Spec struct {
				Containers []container `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	}
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			SlotsPerWorker    int                `yaml:"slotsPerWorker"`
			MPIImplementation string             `yaml:"mpiImplementation"`
			Replicas          map[string]replica `yaml:"mpiReplicaSpecs"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	if job.APIVersion != "kubeflow.org/v2beta1" || job.Kind != "MPIJob" || job.Spec.MPIImplementation != "OpenMPI" {
		t.Fatalf("%s %s %s, want kubeflow.org/v2beta1 MPIJob OpenMPI", job.APIVersion, job.Kind, job.Spec.MPIImplementation)
	}
	launcher, worker := job.Spec.Replicas["Launcher"], job.Spec.Replicas["Worker"]
	if launcher.Replicas != 1 || len(launcher.Template.Spec.Containers) != 1 || len(worker.Template.Spec.Containers) != 1 {
		t.Fatalf("want one launcher and one container each: %+v", job.Spec.Replicas)
	}
	cmd := launcher.Template.Spec.Containers[0].Command
	np := slices.Index(cmd, "-np")
	if len(cmd) == 0 || cmd[0] != "mpirun" || np < 0 || np+1 >= len(cmd) {
		t.Fatalf("launcher command %q is not mpirun -np N ...", cmd)
	}
	if n, _ := strconv.Atoi(cmd[np+1]); n != worker.Replicas*job.Spec.SlotsPerWorker {
		t.Errorf("mpirun -np %s but %d workers x %d slots", cmd[np+1], worker.Replicas, job.Spec.SlotsPerWorker)
	}
	at := slices.Index(cmd, "artist")
	if at < 0 || at+3 >= len(cmd) || cmd[at+1] != "train" || cmd[at+2] != "-config" {
		t.Fatalf("launcher command %q does not run artist train -config FILE", cmd)
	}
	config := cmd[at+3]
	if rel, ok := strings.CutPrefix(config, "/opt/artist/"); !ok {
		t.Errorf("config %s is not under /opt/artist/, where deploy/Dockerfile copies configs/", config)
	} else if _, err := os.Stat(filepath.Join("..", "..", rel)); err != nil {
		t.Errorf("config %s: %v", config, err)
	}
	mounts := worker.Template.Spec.Containers[0].VolumeMounts
	if len(mounts) == 0 || mounts[0].MountPath != "/runs" {
		t.Errorf("workers mount %+v, want the shared run folder volume at /runs", mounts)
	}
}
