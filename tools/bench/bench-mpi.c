// SPDX-License-Identifier: GPL-2.0
/*
 * OpenMPI doing encd's job, for make bench-peers: form the world
 * (MPI_Init), AND 17 bytes across it (MPI_Allreduce, MPI_BAND: encd's
 * signature validation) and broadcast 129 bytes from rank 0 (MPI_Bcast:
 * encd's unique id). Each rank prints one JSON line: the time in MPI_Init,
 * in the first Allreduce + Bcast (over fresh connections, as encd's world
 * runs its own), and the median of REPS more (warm), in microseconds.
 *
 *   mpirun -np N --mca btl tcp,self bench-mpi [REPS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIG_LEN	17
#define UID_LEN	129
#define REPS_MAX 1000

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void exchange(int rank)
{
	unsigned char sig[SIG_LEN], and[SIG_LEN], uid[UID_LEN];

	memset(sig, 0xa5, sizeof(sig));
	sig[SIG_LEN - 1] = 1;
	memset(uid, rank ? 0 : 0x3c, sizeof(uid));
	MPI_Allreduce(sig, and, SIG_LEN, MPI_BYTE, MPI_BAND, MPI_COMM_WORLD);
	MPI_Bcast(uid, UID_LEN, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (and[SIG_LEN - 1] != 1 || uid[UID_LEN - 1] != 0x3c) {
		fprintf(stderr, "bench-mpi: rank %d: wrong result\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	static double warm[REPS_MAX];
	double t0, t_init, t_first;
	int rank, size, reps = argc > 1 ? atoi(argv[1]) : 20, i;

	if (reps < 1 || reps > REPS_MAX) {
		fprintf(stderr, "bench-mpi: REPS is 1 to %d, not '%s'\n", REPS_MAX, argv[1]);
		return 2;
	}
	t0 = now_us();
	MPI_Init(&argc, &argv);
	t_init = now_us() - t0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	t0 = now_us();
	exchange(rank);
	t_first = now_us() - t0;
	for (i = 0; i < reps; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = now_us();
		exchange(rank);
		warm[i] = now_us() - t0;
	}
	qsort(warm, reps, sizeof(warm[0]), cmp);
	printf("{\"rank\":%d,\"size\":%d,\"init_us\":%.0f,\"exchange_us\":%.0f,\"warm_us\":%.0f}\n",
	       rank, size, t_init, t_first, warm[reps / 2]);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
