//go:build mpi && cgo

// ocb.c: the wrappers declared in ocb.h (see there), and the state of the
// receive posted ahead.

#include "ocb.h"

int ocb_init_thread(int required, int *provided) {
	return MPI_Init_thread(NULL, NULL, required, provided);
}

int ocb_errors_return(void) {
	return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

int ocb_world(int *rank, int *size) {
	int rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_size(MPI_COMM_WORLD, size);
}

int ocb_finalize(void) { return MPI_Finalize(); }

int ocb_error_string(int code, char *buf, int *len) {
	return MPI_Error_string(code, buf, len);
}

int ocb_library_version(char *buf, int *len) {
	return MPI_Get_library_version(buf, len);
}

double ocb_wtime(void) { return MPI_Wtime(); }

int ocb_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }

int ocb_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }

void *ocb_alloc_mem(int64_t size, int *rc) {
	void *p = NULL;
	*rc = MPI_Alloc_mem((MPI_Aint)size, MPI_INFO_NULL, &p);
	return p;
}

int ocb_free_mem(void *p) { return MPI_Free_mem(p); }

static int ocb_repost(void);

// ocb_truncated reports whether rc is an error of class MPI_ERR_TRUNCATE.
// The standard lets an implementation return any code of a class (MPICH
// returns codes that carry an error stack; Open MPI returns the class), so
// a code is compared through MPI_Error_class, never with the class itself.
static int ocb_truncated(int rc) {
	int cls = MPI_SUCCESS;
	if (rc == MPI_SUCCESS || MPI_Error_class(rc, &cls) != MPI_SUCCESS) return 0;
	return cls == MPI_ERR_TRUNCATE;
}

// ocb_send sends, then posts the receive ahead if a frame completed it
// (see ocb_repost); a failure to post is reported by the next test.
int ocb_send(void *buf, int count, int dest, int tag) {
	int rc = MPI_Send(buf, count, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
	ocb_repost();
	return rc;
}

static int ocb_status(MPI_Status *st, int *source, int *tag, int *count) {
	*source = st->MPI_SOURCE;
	*tag = st->MPI_TAG;
	return MPI_Get_count(st, MPI_BYTE, count);
}

int ocb_probe(int source, int tag, int *osource, int *otag, int *ocount) {
	MPI_Status st;
	int rc = MPI_Probe(source, tag, MPI_COMM_WORLD, &st);
	if (rc != MPI_SUCCESS) return rc;
	return ocb_status(&st, osource, otag, ocount);
}


ocb_result ocb_iprobe_v(int source, int tag) {
	ocb_result r = {0, 0, 0, 0, 0, 0};
	MPI_Status st;
	r.rc = MPI_Iprobe(source, tag, MPI_COMM_WORLD, &r.flag, &st);
	if (r.rc == MPI_SUCCESS && r.flag) r.rc = ocb_status(&st, &r.source, &r.tag, &r.count);
	return r;
}

ocb_result ocb_recv_v(void *buf, int count, int source, int tag) {
	ocb_result r = {0, 1, 1, 0, 0, 0};
	MPI_Status st;
	r.rc = MPI_Recv(buf, count, MPI_BYTE, source, tag, MPI_COMM_WORLD, &st);
	if (r.rc == MPI_SUCCESS) r.rc = ocb_status(&st, &r.source, &r.tag, &r.count);
	return r;
}

// A receive posted ahead for any source and tag, into one of two buffers
// of C memory that take turns: while the runtime reads the frame just
// received, MPI can already fill the other. One request at a time.
//
// The next receive is posted lazily: not when a frame is returned, but by
// the next send or test. A runtime answers a frame with a send, so the
// MPI_Irecv comes after its answer is on its way instead of before it, off
// the critical path of a round trip (a ping-pong of 46 bytes through
// MPI_Test: 0.35 µs per message instead of 0.44, on this project's 2-core
// machine). A frame that arrives meanwhile waits in MPI's unexpected queue
// and is matched when the receive is posted, in order.
static MPI_Request ocb_posted_req = MPI_REQUEST_NULL;
static int ocb_posted_on; // between PostRecv and CancelRecv
static char *ocb_posted_buf[2];
static int ocb_posted_cap;
static int ocb_posted_cur;


// ocb_repost posts the receive if it is on and not posted.
static int ocb_repost(void) {
	if (!ocb_posted_on || ocb_posted_req != MPI_REQUEST_NULL) return MPI_SUCCESS;
	return MPI_Irecv(ocb_posted_buf[ocb_posted_cur], ocb_posted_cap, MPI_BYTE,
		MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ocb_posted_req);
}

// ocb_post_first allocates the buffers (cap bytes each, at least 1) and
// posts the first receive.
int ocb_post_first(int cap) {
	if (cap < 1) cap = 1;
	if (cap != ocb_posted_cap) {
		free(ocb_posted_buf[0]);
		free(ocb_posted_buf[1]);
		ocb_posted_buf[0] = malloc(cap);
		ocb_posted_buf[1] = malloc(cap);
		ocb_posted_cap = 0;
		if (!ocb_posted_buf[0] || !ocb_posted_buf[1]) return MPI_ERR_NO_MEM;
		ocb_posted_cap = cap;
	}
	ocb_posted_on = 1;
	int rc = ocb_repost();
	if (rc != MPI_SUCCESS) ocb_posted_on = 0;
	return rc;
}

// ocb_posted_done fills r for the receive that just completed with status
// st and return code rc; the next receive goes into the other buffer.
static void ocb_posted_done(ocb_posted *r, int rc, MPI_Status *st) {
	ocb_posted_req = MPI_REQUEST_NULL; // MPI freed it; to be posted again
	r->flag = 1;
	r->source = st->MPI_SOURCE;
	r->tag = st->MPI_TAG;
	if (ocb_truncated(rc)) {
		r->truncated = 1;
	} else if (rc != MPI_SUCCESS) {
		r->rc = rc;
		return;
	} else {
		r->rc = MPI_Get_count(st, MPI_BYTE, &r->count);
		r->data = ocb_posted_buf[ocb_posted_cur];
	}
	ocb_posted_cur ^= 1;
}

int ocb_posted_active(void) { return ocb_posted_on; }
int ocb_posted_capacity(void) { return ocb_posted_cap; }

// ocb_test_any tests the posted receive up to tries times (each MPI_Test
// also makes MPI progress), so that a caller that polls in a loop crosses
// from Go to C less often than it tests.
ocb_posted ocb_test_any(int tries) {
	ocb_posted r = {0, 0, 0, 0, 0, 0, NULL};
	MPI_Status st;
	int flag = 0, rc = MPI_SUCCESS;
	if (!ocb_posted_on) {
		r.rc = MPI_ERR_REQUEST;
		return r;
	}
	if ((r.rc = ocb_repost()) != MPI_SUCCESS) return r;
	do {
		rc = MPI_Test(&ocb_posted_req, &flag, &st);
	} while (rc == MPI_SUCCESS && !flag && --tries > 0);
	if (rc != MPI_SUCCESS && !ocb_truncated(rc)) {
		r.rc = rc;
		return r;
	}
	if (flag || rc != MPI_SUCCESS) ocb_posted_done(&r, rc, &st);
	return r;
}

// ocb_cancel_any cancels the posted receive; if a message completed it
// first, it is returned as by ocb_test_any, and nothing is posted again.
ocb_posted ocb_cancel_any(void) {
	ocb_posted r = {0, 0, 0, 0, 0, 0, NULL};
	MPI_Status st;
	int cancelled = 0;
	ocb_posted_on = 0;
	if (ocb_posted_req == MPI_REQUEST_NULL) return r; // not posted again yet
	MPI_Cancel(&ocb_posted_req);
	int rc = MPI_Wait(&ocb_posted_req, &st);
	ocb_posted_req = MPI_REQUEST_NULL;
	if (rc != MPI_SUCCESS && !ocb_truncated(rc)) {
		r.rc = rc;
		return r;
	}
	MPI_Test_cancelled(&st, &cancelled);
	if (!cancelled) ocb_posted_done(&r, rc, &st);
	return r;
}

// op: 0 sum, 1 max, 2 min (the Go Op values).
static MPI_Op ocb_op(int op) {
	switch (op) {
	case 1: return MPI_MAX;
	case 2: return MPI_MIN;
	default: return MPI_SUM;
	}
}

int ocb_allreduce_i64(const int64_t *in, int64_t *out, int n, int op) {
	return MPI_Allreduce(in, out, n, MPI_INT64_T, ocb_op(op), MPI_COMM_WORLD);
}

int ocb_allreduce_f64(const double *in, double *out, int n, int op) {
	return MPI_Allreduce(in, out, n, MPI_DOUBLE, ocb_op(op), MPI_COMM_WORLD);
}

/* ocb_sum_min_fn combines len vectors of one contiguous type each (so MPI
   never splits a vector): in each, int64 0 says how many of the next are
   summed; the others take the minimum. */
static void ocb_sum_min_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
	int size = 0;
	MPI_Type_size(*dt, &size);
	int n = size / (int)sizeof(int64_t);
	for (int e = 0; e < *len; e++) {
		const int64_t *a = (const int64_t *)in + (size_t)e * n;
		int64_t *b = (int64_t *)inout + (size_t)e * n;
		int64_t nsum = b[0];
		int i = 1;
		for (; i <= nsum && i < n; i++) {
			b[i] += a[i];
		}
		for (; i < n; i++) {
			if (a[i] < b[i]) {
				b[i] = a[i];
			}
		}
	}
}

int ocb_allreduce_sum_min(const int64_t *in, int64_t *out, int n) {
	static MPI_Op op = MPI_OP_NULL;
	int rc;
	if (op == MPI_OP_NULL) {
		rc = MPI_Op_create(ocb_sum_min_fn, 1, &op);
		if (rc != MPI_SUCCESS) {
			return rc;
		}
	}
	MPI_Datatype t;
	rc = MPI_Type_contiguous(n, MPI_INT64_T, &t);
	if (rc != MPI_SUCCESS) {
		return rc;
	}
	rc = MPI_Type_commit(&t);
	if (rc == MPI_SUCCESS) {
		rc = MPI_Allreduce(in, out, 1, t, op, MPI_COMM_WORLD);
	}
	MPI_Type_free(&t);
	return rc;
}

int ocb_allgather_i64(int64_t mine, int64_t *all) {
	return MPI_Allgather(&mine, 1, MPI_INT64_T, all, 1, MPI_INT64_T, MPI_COMM_WORLD);
}

int ocb_allgatherv(const void *sbuf, int scount, void *rbuf,
		const int *counts, const int *displs) {
	return MPI_Allgatherv(sbuf, scount, MPI_BYTE, rbuf, counts, displs, MPI_BYTE,
		MPI_COMM_WORLD);
}

int ocb_gatherv(const void *sbuf, int scount, void *rbuf,
		const int *counts, const int *displs, int root) {
	return MPI_Gatherv(sbuf, scount, MPI_BYTE, rbuf, counts, displs, MPI_BYTE,
		root, MPI_COMM_WORLD);
}

int ocb_bcast_i64(int64_t *v, int root) {
	return MPI_Bcast(v, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
}

int ocb_bcast_bytes(void *buf, int count, int root) {
	return MPI_Bcast(buf, count, MPI_BYTE, root, MPI_COMM_WORLD);
}

// Ping-pong between the caller and peer: `warmup` untimed round trips, then
// `iters` timed ones. The rank with first != 0 sends first.
int ocb_pingpong(void *buf, int size, int peer, int iters, int warmup,
		int first, int tag, double *elapsed) {
	int rc, i;
	double t0 = 0;
	for (i = -warmup; i < iters; i++) {
		if (i == 0) t0 = MPI_Wtime();
		if (first) {
			rc = MPI_Send(buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
			if (rc != MPI_SUCCESS) return rc;
			rc = MPI_Recv(buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (rc != MPI_SUCCESS) return rc;
		} else {
			rc = MPI_Recv(buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (rc != MPI_SUCCESS) return rc;
			rc = MPI_Send(buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
			if (rc != MPI_SUCCESS) return rc;
		}
	}
	*elapsed = MPI_Wtime() - t0;
	return MPI_SUCCESS;
}
