// Package collective is the communication of data-parallel training:
// every process (rank) of a job holds one Collective, and the ranks meet
// in its calls: AllReduce sums buffers across them, Broadcast copies one
// rank's bytes to all, Gather collects bytes at one rank, Barrier waits
// for all, Abort ends the whole job.
//
// Implementations:
//
//   - Single, the default: one process, size 1, every call a copy or
//     nothing. It needs no library.
//   - MPI (OpenMPI): Open MPI's libmpi opened at run time through purego,
//     so a binary built with CGO_ENABLED=0 runs where MPI is not
//     installed and joins an MPI job when a launcher (mpirun, srun
//     --mpi=pmix, the MPI Operator) started it.
//   - Local: n ranks inside one process, for tests.
//
// Open picks one: MPI when the environment shows a launcher (Launched),
// or as ARTIST_COLLECTIVE says (single or mpi); ARTIST_MPI_LIB names the
// library file when the default search (libmpi.so.40, libmpi.so) should
// not be used.
//
// Contract for every implementation, which a GPU backend (NCCL) behind
// the same interface must keep too: all ranks make the same calls in the
// same order with buffers of equal length; AllReduce adds in an order that
// depends only on the number of ranks and the buffer length, never on
// timing, and every rank receives the same bits. Errors are returned, not
// hidden; a rank that dies ends the job (the launcher kills the others),
// so no rank waits forever on a dead one.
package collective
