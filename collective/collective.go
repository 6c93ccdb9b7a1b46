package collective

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Collective is one rank's handle on the job's communication. Its methods
// are collective: every rank calls them in the same order with buffers of
// the same length (Gather's may differ); a method may block until all
// ranks arrive. Implementations are not safe for concurrent use: one
// goroutine of a rank makes its calls.
type Collective interface {
	// Rank is this process's index, 0 ≤ Rank < Size.
	Rank() int
	// Size is the number of ranks in the job.
	Size() int
	// AllReduceFloat32 replaces buf on every rank with the element-wise
	// sum of every rank's buf.
	AllReduceFloat32(buf []float32) error
	// AllReduceFloat64 is AllReduceFloat32 for float64 buffers.
	AllReduceFloat64(buf []float64) error
	// Broadcast copies root's buf into buf on every other rank.
	Broadcast(buf []byte, root int) error
	// Gather returns, on root, every rank's data in rank order; other
	// ranks get nil. The ranks' lengths may differ.
	Gather(data []byte, root int) ([][]byte, error)
	// Barrier returns once every rank has called it.
	Barrier() error
	// Abort ends every rank of the job with the exit code, after writing
	// msg to standard error. It does not return.
	Abort(code int, msg string)
	// Close ends this rank's part in the job (MPI_Finalize). The
	// Collective is unusable afterwards.
	Close() error
}

// Environment variables read by Open.
const (
	// EnvCollective chooses the implementation: "single" or "mpi"; unset,
	// Open uses MPI exactly when Launched.
	EnvCollective = "ARTIST_COLLECTIVE"
	// EnvMPILib is the file name or path of Open MPI's libmpi to load
	// instead of searching libmpi.so.40 and libmpi.so.
	EnvMPILib = "ARTIST_MPI_LIB"
)

// launcherVars are set in each process by the launchers that start MPI
// jobs: Open MPI's mpirun (OMPI_COMM_WORLD_SIZE), PMIx servers such as
// srun --mpi=pmix and the MPI Operator's mpirun (PMIX_RANK), PMI-1/2
// launchers (PMI_RANK).
var launcherVars = []string{"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}

// Launched reports whether this process was started by an MPI launcher,
// and names the variable that says so.
func Launched() (bool, string) {
	for _, v := range launcherVars {
		if _, ok := os.LookupEnv(v); ok {
			return true, v
		}
	}
	return false, ""
}

// Open returns the job's Collective: Single unless an MPI launcher started
// the process or ARTIST_COLLECTIVE=mpi; then OpenMPI. An MPI that cannot
// be loaded or initialised is an error that names the library and
// ARTIST_MPI_LIB, never a fall back to one process (which would train N
// separate copies).
func Open() (Collective, error) {
	switch v := strings.TrimSpace(os.Getenv(EnvCollective)); v {
	case "single":
		return Single{}, nil
	case "mpi":
		return OpenMPI()
	case "":
	default:
		return nil, fmt.Errorf("collective: %s=%q is unknown: use single or mpi", EnvCollective, v)
	}
	if ok, _ := Launched(); ok {
		return OpenMPI()
	}
	return Single{}, nil
}

// Single is the one-process Collective: rank 0 of 1.
type Single struct{}

var _ Collective = Single{}

func (Single) Rank() int                        { return 0 }
func (Single) Size() int                        { return 1 }
func (Single) AllReduceFloat32([]float32) error { return nil }
func (Single) AllReduceFloat64([]float64) error { return nil }
func (Single) Barrier() error                   { return nil }
func (Single) Close() error                     { return nil }

// Broadcast checks root; one rank's buf is already everyone's.
func (Single) Broadcast(_ []byte, root int) error { return checkRoot(root, 1) }

// Gather returns a copy of data as the only rank's.
func (Single) Gather(data []byte, root int) ([][]byte, error) {
	if err := checkRoot(root, 1); err != nil {
		return nil, err
	}
	return [][]byte{append([]byte(nil), data...)}, nil
}

// Abort writes msg and exits with code.
func (Single) Abort(code int, msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(code)
}

// ErrRoot reports a root outside [0, Size).
var ErrRoot = errors.New("collective: root rank out of range")

func checkRoot(root, size int) error {
	if root < 0 || root >= size {
		return fmt.Errorf("%w: %d of %d ranks", ErrRoot, root, size)
	}
	return nil
}

// AllGather returns every rank's data in rank order on every rank: a
// Gather at rank 0 and a Broadcast of the result.
func AllGather(c Collective, data []byte) ([][]byte, error) {
	parts, err := c.Gather(data, 0)
	if err != nil {
		return nil, err
	}
	var packed []byte
	if c.Rank() == 0 {
		packed = pack(parts)
	}
	n := []byte{0, 0, 0, 0, 0, 0, 0, 0}
	putU64(n, uint64(len(packed)))
	if err := c.Broadcast(n, 0); err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		packed = make([]byte, getU64(n))
	}
	if err := c.Broadcast(packed, 0); err != nil {
		return nil, err
	}
	return unpack(packed, c.Size())
}

// pack lays parts out as (8-byte length, bytes) each.
func pack(parts [][]byte) []byte {
	var out []byte
	for _, p := range parts {
		var n [8]byte
		putU64(n[:], uint64(len(p)))
		out = append(append(out, n[:]...), p...)
	}
	return out
}

func unpack(b []byte, n int) ([][]byte, error) {
	parts := make([][]byte, n)
	for i := range parts {
		if len(b) < 8 {
			return nil, errors.New("collective: AllGather: short message")
		}
		l := getU64(b)
		b = b[8:]
		if uint64(len(b)) < l {
			return nil, errors.New("collective: AllGather: short message")
		}
		parts[i], b = b[:l:l], b[l:]
	}
	return parts, nil
}

func putU64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}

func getU64(b []byte) uint64 {
	var v uint64
	for i := range 8 {
		v |= uint64(b[i]) << (8 * i)
	}
	return v
}
