// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency and churn: racing builders make exactly one global comm
 * (libnrt's double-checked lock), from threads and from processes; build,
 * release, close and mmap racing each other leave nothing behind; and a
 * thousand build/release cycles, after which the runner unloads the module
 * (the debug lane's kmemleak then sees any leak).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <enc/enc.h>

#include "encd_test.h"

#define RACERS		64
#define PROCS		16
#define CYCLES		1000
#define CHURN_THREADS	8
#define CHURN_ROUNDS	300

struct racer {
	pthread_t thread;
	int fd;
	unsigned long cmd;
	__u32 vnc;
	__u32 world;
	pthread_barrier_t *start;
	/* out */
	int err;
	__u32 out_flags;
	__u64 serial;
	char msg[256];
};

static void *race_build(void *arg)
{
	struct racer *r = arg;
	struct encd_global_comm_req req;

	pthread_barrier_wait(r->start);
	r->err = encd_gcomm(r->fd, r->cmd, 0, r->vnc, 0, r->world, 0, &req);
	r->out_flags = req.out_flags;
	strcpy(r->msg, encd_msg);
	if (!r->err)
		r->serial = encd_serial(r->fd, r->vnc, 0);
	return NULL;
}

/* Starts @n racers at once and waits for all of them. */
static void run_racers(struct __test_metadata *_metadata, struct racer *r, int n)
{
	pthread_barrier_t start;
	int i;

	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, n));
	for (i = 0; i < n; i++) {
		r[i].start = &start;
		ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, race_build, &r[i]));
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, pthread_join(r[i].thread, NULL));
	}
	pthread_barrier_destroy(&start);
}

FIXTURE(race) {
	int fd;
	struct racer r[RACERS];
};

FIXTURE_VARIANT(race) {
	bool shared_fd;		/* all threads use one fd, or each its own */
};

FIXTURE_VARIANT_ADD(race, one_fd) {
	.shared_fd = true,
};

FIXTURE_VARIANT_ADD(race, fd_per_thread) {
	.shared_fd = false,
};

FIXTURE_SETUP(race)
{
	int i;

	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
	for (i = 0; i < RACERS; i++) {
		self->r[i] = (struct racer) {
			.fd = variant->shared_fd ? self->fd : encd_open(),
			.cmd = ENCD_IOC_BUILD_GLOBAL_COMM,
			.vnc = 7,
			.world = 4,
		};
		ASSERT_LE(0, self->r[i].fd);
	}
}

FIXTURE_TEARDOWN(race)
{
	int i;

	for (i = 0; i < RACERS; i++)
		if (self->r[i].fd != self->fd)
			close(self->r[i].fd);
	close(self->fd);
}

/* Exactly one racer of @world created the comm; all of them see it. */
static void check_one_object(struct __test_metadata *_metadata, FIXTURE_DATA(race) *self,
			     const FIXTURE_VARIANT(race) *variant, __u32 world)
{
	struct encd_glb_comm_header hdr;
	int i, created = 0, joined = 0;

	test_cmd(encd_get(self->fd, 7, 0, &hdr));
	ASSERT_EQ(world, hdr.g_device_cnt);
	for (i = 0; i < RACERS; i++) {
		if (self->r[i].world != world)
			continue;
		ASSERT_EQ(0, self->r[i].err) {
			TH_LOG("racer %d: %s", i, self->r[i].msg);
		}
		ASSERT_EQ(hdr.serial, self->r[i].serial);
		if (self->r[i].out_flags & ENCD_GCOMM_OUT_CREATED)
			created++;
		joined++;
	}
	ASSERT_EQ(1, created);
	ASSERT_EQ(variant->shared_fd ? 1 : joined, hdr.holders);
}

TEST_F(race, racing_builders_make_exactly_one_comm)
{
	run_racers(_metadata, self->r, RACERS);
	check_one_object(_metadata, self, variant, 4);
}

TEST_F(race, racing_build_and_validate_make_exactly_one_comm)
{
	int i;

	for (i = 0; i < RACERS; i += 2)
		self->r[i].cmd = ENCD_IOC_VALIDATE_GLOBAL_COMM;
	run_racers(_metadata, self->r, RACERS);
	check_one_object(_metadata, self, variant, 4);
}

TEST_F(race, racing_worlds_let_exactly_one_world_win)
{
	const char *refusal = "NRT has already been setup with a collectives world size of";
	struct encd_glb_comm_header hdr;
	int i;

	for (i = 0; i < RACERS; i += 2)
		self->r[i].world = 8;
	run_racers(_metadata, self->r, RACERS);

	test_cmd(encd_get(self->fd, 7, 0, &hdr));
	check_one_object(_metadata, self, variant, hdr.g_device_cnt);
	for (i = 0; i < RACERS; i++) {
		if (self->r[i].world == hdr.g_device_cnt)
			continue;
		ASSERT_EQ(EINVAL, self->r[i].err);
		ASSERT_EQ(0, strncmp(self->r[i].msg, refusal, strlen(refusal))) {
			TH_LOG("racer %d: %s", i, self->r[i].msg);
		}
	}
}

TEST_F(race, racing_on_many_cores_makes_one_comm_per_core)
{
	int created[8] = { 0 };
	__u64 serials[8];
	int i, j;

	for (i = 0; i < RACERS; i++)
		self->r[i].vnc = 8 + i % 8;
	run_racers(_metadata, self->r, RACERS);

	for (j = 0; j < 8; j++)
		serials[j] = encd_serial(self->fd, 8 + j, 0);
	for (i = 0; i < RACERS; i++) {
		ASSERT_EQ(0, self->r[i].err);
		ASSERT_EQ(serials[i % 8], self->r[i].serial);
		created[i % 8] += !!(self->r[i].out_flags & ENCD_GCOMM_OUT_CREATED);
	}
	for (j = 0; j < 8; j++) {
		ASSERT_EQ(1, created[j]);
		ASSERT_NE(0, serials[j]);
		if (j) {
			ASSERT_NE(serials[j - 1], serials[j]);
		}
	}
}

TEST_F(race, the_comm_dies_when_the_last_racer_closes)
{
	int i;

	run_racers(_metadata, self->r, RACERS);
	for (i = 0; i < RACERS; i++) {
		if (self->r[i].fd != self->fd)
			close(self->r[i].fd);
		self->r[i].fd = self->fd;
	}
	if (variant->shared_fd) {
		test_cmd(encd_release(self->fd, 7, 0));
	}
	test_err(ENOENT, NULL, encd_get(self->fd, 7, 0, NULL));
}

/* What every process of a multi-process race writes to shared memory. */
struct proc_result {
	int err;
	__u32 out_flags;
	__u64 serial;
};

struct proc_race {
	pthread_barrier_t start;	/* children and the parent */
	pthread_barrier_t built;	/* every child has built */
	pthread_barrier_t checked;	/* the parent has looked */
	struct proc_result res[PROCS];
};

FIXTURE(procs) {
	struct proc_race *shm;
	pid_t pid[PROCS];
	int probe;
};

FIXTURE_VARIANT(procs) {
	bool libenc;	/* build through libenc rather than raw ioctls */
};

FIXTURE_VARIANT_ADD(procs, raw_ioctl) {
	.libenc = false,
};

FIXTURE_VARIANT_ADD(procs, libenc) {
	.libenc = true,
};

FIXTURE_SETUP(procs)
{
	pthread_barrierattr_t attr;

	self->probe = encd_open();
	ASSERT_LE(0, self->probe);
	self->shm = mmap(NULL, sizeof(*self->shm), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->shm);
	ASSERT_EQ(0, pthread_barrierattr_init(&attr));
	ASSERT_EQ(0, pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED));
	ASSERT_EQ(0, pthread_barrier_init(&self->shm->start, &attr, PROCS + 1));
	ASSERT_EQ(0, pthread_barrier_init(&self->shm->built, &attr, PROCS + 1));
	ASSERT_EQ(0, pthread_barrier_init(&self->shm->checked, &attr, PROCS + 1));
	pthread_barrierattr_destroy(&attr);
}

FIXTURE_TEARDOWN(procs)
{
	munmap(self->shm, sizeof(*self->shm));
	close(self->probe);
}

/* A child: build on core 9 when all are ready, hold until the parent looked. */
static void proc_child(struct proc_race *shm, int i, bool libenc)
{
	struct proc_result *res = &shm->res[i];
	struct encd_global_comm_req req;
	int fd = -1;

	if (libenc) {
		res->err = enc_init();
	} else {
		fd = encd_open();
		res->err = fd < 0 ? errno : 0;
	}
	pthread_barrier_wait(&shm->start);
	if (!res->err && libenc) {
		struct encd_glb_comm_header hdr = { 0 };

		res->err = enc_init_global_comm(9, 2, 4, 0, ENCD_TEST_ROOT, false);
		if (!res->err)
			res->err = enc_get_global_comm_header(9, 0, &hdr);
		res->serial = hdr.serial;
	} else if (!res->err) {
		res->err = encd_gcomm(fd, ENCD_IOC_BUILD_GLOBAL_COMM, 0, 9, 2, 4, 0, &req);
		res->out_flags = req.out_flags;
		res->serial = encd_serial(fd, 9, 0);
	}
	pthread_barrier_wait(&shm->built);
	pthread_barrier_wait(&shm->checked);
	_exit(0);
}

TEST_F(procs, racing_processes_share_exactly_one_comm)
{
	struct encd_glb_comm_header hdr;
	int i, created = 0, status, err;

	for (i = 0; i < PROCS; i++) {
		self->pid[i] = fork();
		ASSERT_LE(0, self->pid[i]);
		if (!self->pid[i])
			proc_child(self->shm, i, variant->libenc);
	}
	pthread_barrier_wait(&self->shm->start);
	pthread_barrier_wait(&self->shm->built);

	/* look while every child holds it; assert only once they are let go */
	err = encd_get(self->probe, 9, 0, &hdr);
	pthread_barrier_wait(&self->shm->checked);
	for (i = 0; i < PROCS; i++) {
		ASSERT_EQ(self->pid[i], waitpid(self->pid[i], &status, 0));
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	test_cmd(err);

	ASSERT_EQ(PROCS, hdr.holders);
	ASSERT_EQ(2, hdr.g_device_id);
	ASSERT_EQ(4, hdr.g_device_cnt);
	for (i = 0; i < PROCS; i++) {
		ASSERT_EQ(0, self->shm->res[i].err);
		ASSERT_EQ(hdr.serial, self->shm->res[i].serial);
		created += !!(self->shm->res[i].out_flags & ENCD_GCOMM_OUT_CREATED);
	}
	if (!variant->libenc) {
		ASSERT_EQ(1, created);
	}

	/* every holder exited: the comm is gone */
	test_err(ENOENT, NULL, encd_get(self->probe, 9, 0, NULL));
}

FIXTURE(cycles) {
	int fd;
	size_t page;
};

FIXTURE_SETUP(cycles)
{
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
	self->page = getpagesize();
}

FIXTURE_TEARDOWN(cycles)
{
	close(self->fd);
}

TEST_F_TIMEOUT(cycles, a_thousand_build_release_cycles, 300)
{
	__u64 serial, last = 0;
	__u32 out;
	int i;

	for (i = 0; i < CYCLES; i++) {
		test_cmd(encd_build(self->fd, 11, i % 4, 4, i % 2, &out));
		ASSERT_EQ(ENCD_GCOMM_OUT_CREATED, out);
		serial = encd_serial(self->fd, 11, i % 2);
		ASSERT_LT(last, serial);
		last = serial;
		test_cmd(encd_release(self->fd, 11, i % 2));
	}
	test_err(ENOENT, NULL, encd_get(self->fd, 11, 0, NULL));
	test_err(ENOENT, NULL, encd_get(self->fd, 11, 1, NULL));
}

TEST_F_TIMEOUT(cycles, a_thousand_open_build_close_cycles, 300)
{
	__u32 out;
	int i, fd;

	for (i = 0; i < CYCLES; i++) {
		fd = encd_open();
		ASSERT_LE(0, fd);
		test_cmd(encd_build(fd, 12, 0, 1, 0, &out));
		ASSERT_EQ(ENCD_GCOMM_OUT_CREATED, out);
		close(fd);
	}
	test_err(ENOENT, NULL, encd_get(self->fd, 12, 0, NULL));
}

TEST_F_TIMEOUT(cycles, a_thousand_map_destroy_read_cycles, 300)
{
	struct encd_glb_comm_header hdr;
	__u32 *v;
	int i;

	for (i = 0; i < CYCLES; i++) {
		test_cmd(encd_build(self->fd, 13, 0, 1, 0, NULL));
		test_cmd(encd_get(self->fd, 13, 0, &hdr));
		v = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd,
			 hdr.inc_recv_sem_values_buffer);
		ASSERT_NE(MAP_FAILED, v);
		test_cmd(encd_release(self->fd, 13, 0));
		ASSERT_EQ(ENCD_SEM_VALUES_HEADER, v[0]);
		ASSERT_EQ(128, v[128]);
		ASSERT_EQ(0, munmap(v, self->page));
	}
	test_err(ENOENT, NULL, encd_get(self->fd, 13, 0, NULL));
}

/* Holders come and go on one core from several threads. */
struct churner {
	pthread_t thread;
	int id;
	int errors;
	char msg[256];
};

static void *churn(void *arg)
{
	struct churner *c = arg;
	size_t page = getpagesize();
	struct encd_glb_comm_header hdr;
	int fd = encd_open(), i, err;
	__u32 *v;

	for (i = 0; i < CHURN_ROUNDS && fd >= 0; i++) {
		err = encd_build(fd, 10, 1, 2, 0, NULL);
		if (!err && c->id % 2 && !encd_get(fd, 10, 0, &hdr)) {
			/* half the threads map and read while others destroy */
			v = mmap(NULL, page, PROT_READ, MAP_SHARED, fd,
				 hdr.inc_recv_sem_values_buffer);
			if (v == MAP_FAILED || v[128] != 128)
				err = -1;
			if (v != MAP_FAILED)
				munmap(v, page);
		}
		if (!err)
			err = c->id % 4 == 3 ? 0 : encd_release(fd, 10, 0);
		if (c->id % 4 == 3) {
			/* the close path instead of RELEASE */
			close(fd);
			fd = encd_open();
		}
		if (err) {
			c->errors++;
			strcpy(c->msg, encd_msg);
		}
	}
	if (fd < 0)
		c->errors++;
	else
		close(fd);
	return NULL;
}

TEST_F_TIMEOUT(cycles, build_release_close_and_mmap_churn_leaves_nothing, 300)
{
	struct churner c[CHURN_THREADS];
	int i;

	for (i = 0; i < CHURN_THREADS; i++) {
		c[i] = (struct churner) { .id = i };
		ASSERT_EQ(0, pthread_create(&c[i].thread, NULL, churn, &c[i]));
	}
	for (i = 0; i < CHURN_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(c[i].thread, NULL));
		ASSERT_EQ(0, c[i].errors) {
			TH_LOG("churner %d: %s", i, c[i].msg);
		}
	}
	test_err(ENOENT, NULL, encd_get(self->fd, 10, 0, NULL));
}

TEST_HARNESS_MAIN
