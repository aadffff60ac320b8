// wake-latency: the operating system's share of a delivery delay, without
// MPI or Go. P processes on one machine sleep on a futex (as ocbench's idle
// ranks do on their doorbells) and ring one another at random: each ring
// stamps the clock into the receiver's slot and wakes it; the receiver
// records now - stamp when it runs. Prints the median, p99, p99.9 and max of
// those one-way wake-up delays. No runtime that wakes a sleeping process on
// this machine can deliver faster than this, so a δ below the max cannot
// hold for long runs. Used by scripts/wake-latency.sh.
//
//	wake-latency P SAMPLES GAP   (each process sends SAMPLES rings, waiting
//	                              uniform [0, 2·GAP] µs between them)
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RING 4096     // stamps in flight to one process
#define MAXREC 400000 // delays recorded per process

typedef struct {
	int64_t stamp;
	uint32_t seq; // index + 1 once stamp is written
} entry;

typedef struct {
	uint32_t written; // futex word: rings sent to this process
	uint32_t claimed; // entries claimed by senders
	uint32_t pad[14];
	entry e[RING];
	uint32_t n; // delays recorded
	int64_t delay[MAXREC];
} slot;

static int64_t now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
	if (argc != 4 || atoi(argv[1]) < 2 || atoi(argv[2]) < 1 || atoi(argv[3]) < 1) {
		fprintf(stderr, "usage: wake-latency PROCESSES(>=2) SAMPLES GAP-µs\n");
		return 2;
	}
	int P = atoi(argv[1]), N = atoi(argv[2]), G = atoi(argv[3]);
	slot *s = mmap(0, sizeof(slot) * P, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint32_t *done = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0); // senders done
	if (s == MAP_FAILED || done == MAP_FAILED) {
		perror("wake-latency: mmap");
		return 1;
	}
	for (int r = 0; r < P; r++) {
		if (fork() != 0)
			continue;
		srand(r + 1);
		uint32_t read = 0;
		int sent = 0;
		int64_t next = now() + (int64_t)(rand() % (2 * G + 1)) * 1000; // the next ring to send
		for (;;) {
			// Sleep until the next ring to send, or until rung.
			int64_t left = next - now();
			if (sent == N || left > 2000000)
				left = 2000000; // look for the end every 2 ms
			uint32_t w = __atomic_load_n(&s[r].written, __ATOMIC_ACQUIRE);
			if (w == read && left > 0) {
				struct timespec to = {left / 1000000000L, left % 1000000000L};
				syscall(SYS_futex, &s[r].written, FUTEX_WAIT, read, &to, 0, 0);
			}
			w = __atomic_load_n(&s[r].written, __ATOMIC_ACQUIRE);
			int64_t t = now();
			for (; read != w; read++) {
				entry *e = &s[r].e[read % RING];
				if ((int32_t)(__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) - (read + 1)) < 0) {
					// Another sender claimed this entry first and has
					// not stamped it yet: wait for it, and record no
					// delay (this process was awake when it came).
					while ((int32_t)(__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) - (read + 1)) < 0)
						sched_yield();
					continue;
				}
				int64_t stamp = e->stamp;
				if (e->seq != read + 1 || stamp > t)
					continue; // overwritten (RING more rings came first), or stamped after the wake-up
				if (s[r].n < MAXREC)
					s[r].delay[s[r].n++] = t - stamp;
			}
			if (sent < N && now() >= next) {
				next += (int64_t)(rand() % (2 * G + 1)) * 1000;
				int d = rand() % (P - 1);
				d += d >= r;
				uint32_t idx = __atomic_fetch_add(&s[d].claimed, 1, __ATOMIC_ACQ_REL);
				entry *e = &s[d].e[idx % RING];
				e->stamp = now();
				__atomic_store_n(&e->seq, idx + 1, __ATOMIC_RELEASE);
				__atomic_fetch_add(&s[d].written, 1, __ATOMIC_RELEASE);
				syscall(SYS_futex, &s[d].written, FUTEX_WAKE, 1, 0, 0, 0);
				if (++sent == N)
					__atomic_fetch_add(done, 1, __ATOMIC_ACQ_REL);
			}
			if (sent == N && __atomic_load_n(done, __ATOMIC_ACQUIRE) == (uint32_t)P &&
			    __atomic_load_n(&s[r].written, __ATOMIC_ACQUIRE) == read)
				break;
		}
		_exit(0);
	}
	for (int r = 0; r < P; r++)
		wait(0);
	int64_t *all = malloc(sizeof(int64_t) * (size_t)P * MAXREC);
	long m = 0;
	for (int r = 0; r < P; r++)
		for (uint32_t k = 0; k < s[r].n; k++)
			all[m++] = s[r].delay[k];
	if (m == 0) {
		fprintf(stderr, "wake-latency: no samples\n");
		return 1;
	}
	qsort(all, m, sizeof(int64_t), cmp);
	printf("%d processes, %ld wake-ups: median %.1f µs, p99 %.1f µs, p99.9 %.1f µs, max %.1f µs\n", P, m,
	       all[m / 2] / 1e3, all[m * 99 / 100] / 1e3, all[m * 999 / 1000] / 1e3, all[m - 1] / 1e3);
	return 0;
}
