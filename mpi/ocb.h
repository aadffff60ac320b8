// ocb.h: the C side of the mpi package's cgo binding (build tag mpi): thin
// wrappers so that the Go side never needs MPI's handle types (MPI_Comm,
// MPI_Datatype, MPI_Op differ between implementations: pointers in Open
// MPI, integers in MPICH). Every function returns an MPI error code, or a
// struct that carries one. Written from the MPI standard (MPI 3.1).
#ifndef OCB_H
#define OCB_H

#include <stdint.h>
#include <stdlib.h>
#include <mpi.h>

// ocb_result carries a return code and a status by value: the Go side
// passes no pointer to its own variables, so a call allocates nothing (cgo
// moves a variable whose address goes to C onto the heap).
typedef struct { int rc, flag, received, source, tag, count; } ocb_result;
// ocb_posted is what a test of the receive posted ahead found: data points
// into the C buffer that received the frame (valid until the next test).
typedef struct { int rc, flag, truncated, source, tag, count; char *data; } ocb_posted;

int ocb_abort(int code);
int ocb_allgather_i64(int64_t mine, int64_t *all);
int ocb_allreduce_sum_min(const int64_t *in, int64_t *out, int n);
int ocb_allgatherv(const void *sbuf, int scount, void *rbuf,
		const int *counts, const int *displs);
void *ocb_alloc_mem(int64_t size, int *rc);
int ocb_allreduce_f64(const double *in, double *out, int n, int op);
int ocb_allreduce_i64(const int64_t *in, int64_t *out, int n, int op);
int ocb_barrier(void);
int ocb_bcast_bytes(void *buf, int count, int root);
int ocb_bcast_i64(int64_t *v, int root);
ocb_posted ocb_cancel_any(void);
int ocb_error_string(int code, char *buf, int *len);
int ocb_errors_return(void);
int ocb_finalize(void);
int ocb_free_mem(void *p);
int ocb_gatherv(const void *sbuf, int scount, void *rbuf,
		const int *counts, const int *displs, int root);
int ocb_init_thread(int required, int *provided);
ocb_result ocb_iprobe_v(int source, int tag);
int ocb_library_version(char *buf, int *len);
int ocb_pingpong(void *buf, int size, int peer, int iters, int warmup,
		int first, int tag, double *elapsed);
int ocb_post_first(int cap);
int ocb_posted_active(void);
int ocb_posted_capacity(void);
int ocb_probe(int source, int tag, int *osource, int *otag, int *ocount);
ocb_result ocb_recv_v(void *buf, int count, int source, int tag);
int ocb_send(void *buf, int count, int dest, int tag);
ocb_posted ocb_test_any(int tries);
int ocb_world(int *rank, int *size);
double ocb_wtime(void);

#endif
