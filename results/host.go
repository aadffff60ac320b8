package results

import (
	"bufio"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Host is the machine a saved run was made on (rank 0's under MPI; the
// environment's hostnames name every rank's): its hardware, operating
// system and the settings of the environment that change how ocbench or
// MPI run. Together with the environment's command, versions and times it
// makes a saved run a result bundle, as SCC-style bundles keep them.
type Host struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	// Kernel is the kernel's release (/proc/sys/kernel/osrelease).
	Kernel string `json:"kernel,omitempty"`
	// CPUModel is the processor's name (/proc/cpuinfo's "model name").
	CPUModel string `json:"cpu_model,omitempty"`
	// Cores counts the physical cores (per package, times the packages,
	// from /proc/cpuinfo; 0 when it does not say), CPUs the logical ones
	// the process may use (runtime.NumCPU) and GOMAXPROCS how many of
	// them run Go code at once.
	Cores      int `json:"cores,omitempty"`
	CPUs       int `json:"cpus"`
	GOMAXPROCS int `json:"gomaxprocs"`
	// MemoryBytes is the machine's memory (MemTotal in /proc/meminfo).
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	// Env holds the variables of HostEnv that are set.
	Env map[string]string `json:"env,omitempty"`
}

// HostEnv are the environment variables a Host records when set: the Go
// runtime's settings, and the batch system's and MPI's names for the job
// (never other variables, which may hold secrets).
var HostEnv = []string{"GOMAXPROCS", "GOGC", "GOMEMLIMIT",
	"SLURM_JOB_ID", "SLURM_JOB_NAME", "SLURM_JOB_NODELIST", "SLURM_NTASKS", "SLURM_CPUS_PER_TASK", "SLURM_CLUSTER_NAME",
	"OMPI_COMM_WORLD_SIZE", "OMPI_MCA_btl", "OMPI_MCA_pml", "PMI_SIZE"}

// ReadHost describes this machine: from /proc on Linux, and what the Go
// runtime knows elsewhere.
func ReadHost() *Host {
	h := &Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		h.CPUModel, h.Cores = parseCPUInfo(f)
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		h.MemoryBytes = parseMemTotal(f)
		f.Close()
	}
	for _, k := range HostEnv {
		if v, ok := lookupEnv(k); ok {
			if h.Env == nil {
				h.Env = map[string]string{}
			}
			h.Env[k] = v
		}
	}
	return h
}

// parseCPUInfo reads /proc/cpuinfo: the first "model name" (or, on ARM,
// "Model" / "Processor"), and the physical cores: "cpu cores" per
// distinct "physical id" (0 when the file has no such lines).
func parseCPUInfo(f io.Reader) (model string, cores int) {
	perPackage := map[string]int{}
	id := "0"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name", "Model", "Processor":
			if model == "" {
				model = v
			}
		case "physical id":
			id = v
		case "cpu cores":
			if n, err := strconv.Atoi(v); err == nil {
				perPackage[id] = n
			}
		}
	}
	for _, n := range perPackage {
		cores += n
	}
	return model, cores
}

// parseMemTotal reads MemTotal from /proc/meminfo, in bytes (0 if absent).
func parseMemTotal(f io.Reader) int64 {
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// lookupEnv is os.LookupEnv.
var lookupEnv = os.LookupEnv
