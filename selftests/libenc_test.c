// SPDX-License-Identifier: GPL-2.0
/*
 * libenc: its state machine (UNINITIALIZED, open, CLOSED), NRT_STATUS
 * values, the sentences enc_last_error() gives (the kernel's, prefixed by
 * the call), per-thread errors, thread safety, and the cached mappings of
 * enc_map_sem_values(). Every test runs in its own process, so each starts
 * with the library uninitialized.
 */
#include <pthread.h>
#include <sys/mman.h>

#include <enc/enc.h>
#include "enc_internal.h"

#include "encd_test.h"

#define THREADS	64

/* @expr returns @_st and enc_last_error() is exactly @_msg. */
#define test_nrt(_st, _msg, expr)					\
	do {								\
		const char *__want = (_msg);				\
		ASSERT_EQ(_st, expr) {					\
			TH_LOG("%s: %s", #expr, enc_last_error());	\
		}							\
		if (__want) {					\
			ASSERT_STREQ(__want, enc_last_error());		\
		}							\
	} while (0)

#define test_nrt_ok(expr)	test_nrt(NRT_SUCCESS, NULL, expr)

FIXTURE(libenc) {
	int probe;	/* a raw fd that looks at the kernel's side */
};

FIXTURE_SETUP(libenc)
{
	self->probe = encd_open();
	ASSERT_LE(0, self->probe);
}

FIXTURE_TEARDOWN(libenc)
{
	enc_destroy_gcomm_locks();
	close(self->probe);
}

/* Every call that needs the device, with harmless arguments. */
static void check_every_call(struct __test_metadata *_metadata, NRT_STATUS st, const char *msg)
{
	const uint32_t *buf;
	struct encd_glb_comm_header hdr;
	uint32_t id, cnt;
	size_t size;

	test_nrt(st, msg, enc_init_global_comm(0, 0, 1, 0, "", false));
	test_nrt(st, msg, enc_validate_global_comm(0, 0, 1, 0, "", false));
	test_nrt(st, msg, enc_get_glb_device_id_and_cnt(0, 0, &id, &cnt));
	test_nrt(st, msg, enc_get_global_comm_header(0, 0, &hdr));
	test_nrt(st, msg, enc_map_sem_values(0, 0, &buf, &size));
	test_nrt(st, msg, enc_release_global_comm(0, 0));
}

TEST_F(libenc, calls_before_enc_init_are_uninitialized)
{
	NRT_STATUS st;

	ASSERT_STREQ("", enc_last_error());
	check_every_call(_metadata, NRT_UNINITIALIZED,
			 "libenc is not initialized: call enc_init() first");
	ASSERT_EQ(-1, enc_fd_get(&st));
	ASSERT_EQ(NRT_UNINITIALIZED, st);
}

TEST_F(libenc, calls_after_destroy_are_closed_until_enc_init)
{
	NRT_STATUS st;

	test_nrt_ok(enc_init());
	ASSERT_LE(0, enc_fd_get(&st));
	enc_destroy_gcomm_locks();
	check_every_call(_metadata, NRT_CLOSED,
			 "libenc is closed: enc_destroy_gcomm_locks() was called");
	ASSERT_EQ(-1, enc_fd_get(&st));
	ASSERT_EQ(NRT_CLOSED, st);

	test_nrt_ok(enc_init());
	test_nrt_ok(enc_init_global_comm(0, 0, 1, 0, "", false));
}

TEST_F(libenc, destroy_before_init_closes_the_library)
{
	enc_destroy_gcomm_locks();
	test_nrt(NRT_CLOSED, NULL, enc_release_global_comm(0, 0));
	enc_destroy_gcomm_locks();
	test_nrt_ok(enc_init());
}

TEST_F(libenc, enc_init_twice_keeps_the_device)
{
	NRT_STATUS st;
	int fd;

	test_nrt_ok(enc_init());
	fd = enc_fd_get(&st);
	test_nrt_ok(enc_init());
	ASSERT_EQ(fd, enc_fd_get(&st));
}

TEST_F(libenc, build_then_read_back_the_identity)
{
	struct encd_glb_comm_header hdr;
	uint32_t id = 0, cnt = 0;

	test_nrt_ok(enc_init());
	test_nrt_ok(enc_init_global_comm(4, 1, 2, 0, ENCD_TEST_ROOT, true));
	test_nrt_ok(enc_get_glb_device_id_and_cnt(4, 0, &id, &cnt));
	ASSERT_EQ(1, id);
	ASSERT_EQ(2, cnt);
	test_nrt_ok(enc_get_global_comm_header(4, 0, &hdr));
	ASSERT_EQ(1, hdr.check_sigs);
	ASSERT_EQ(4, hdr.nec_dev_id);
	ASSERT_STREQ(ENCD_TEST_ROOT, hdr.root_comm_id);
	ASSERT_EQ(1, hdr.holders);

	/* the same world again is a success, held once */
	test_nrt_ok(enc_init_global_comm(4, 1, 2, 0, ENCD_TEST_ROOT, true));
	test_nrt_ok(enc_get_global_comm_header(4, 0, &hdr));
	ASSERT_EQ(1, hdr.holders);
}

TEST_F(libenc, the_kernels_sentence_reaches_enc_last_error)
{
	const char *refusal = "enc_init_global_comm: "
			   "NRT has already been setup with a collectives world size of 8";

	test_nrt_ok(enc_init());
	test_nrt(NRT_INVALID, "enc_init_global_comm: Invalid context id 2 (there are 2) (EINVAL)",
		 enc_init_global_comm(0, 0, 1, 2, "", false));
	test_nrt(NRT_INVALID, "enc_init_global_comm: Failed to find core 32 (ENODEV)",
		 enc_init_global_comm(32, 0, 1, 0, "", false));
	test_nrt(NRT_INVALID, "enc_init_global_comm: Invalid world size 0 (EINVAL)",
		 enc_init_global_comm(0, 0, 0, 0, "", false));
	test_nrt(NRT_INVALID,
		 "enc_get_glb_device_id_and_cnt: No global comm on core 5 context 1 (ENOENT)",
		 enc_get_glb_device_id_and_cnt(5, 1, &(uint32_t){ 0 }, &(uint32_t){ 0 }));
	test_nrt(NRT_INVALID,
		 "enc_release_global_comm: This file does not hold the global comm of core 5 context 1 (ENOENT)",
		 enc_release_global_comm(5, 1));

	test_nrt_ok(enc_init_global_comm(5, 0, 8, 0, "", false));
	test_nrt(NRT_INVALID, NULL, enc_init_global_comm(5, 0, 4, 0, "", false));
	ASSERT_EQ(0, strncmp(refusal, enc_last_error(), strlen(refusal))) {
		TH_LOG("%s", enc_last_error());
	}
}

TEST_F(libenc, validate_follows_the_three_neff_world_rules)
{
	test_nrt_ok(enc_init());
	/* no comm: validate builds it */
	test_nrt_ok(enc_validate_global_comm(6, 2, 8, 1, "", false));
	test_nrt(NRT_INVALID,
		 "enc_validate_global_comm: World size of neff 16 is greater than world size of global communicator 8 (EINVAL)",
		 enc_validate_global_comm(6, 2, 16, 1, "", false));
	test_nrt_ok(enc_validate_global_comm(6, 2, 8, 1, "", false));
	test_nrt(NRT_INVALID,
		 "enc_validate_global_comm: World size of neff != global communicator. Recommend nrt_build_global_comm first. (EINVAL)",
		 enc_validate_global_comm(6, 2, 4, 1, "", false));
}

TEST_F(libenc, pod_and_virtual_server_errors_are_invalid)
{
	test_nrt_ok(enc_init());
	ASSERT_EQ(0, encd_host_params_reset());
	ASSERT_EQ(0, encd_param_set("virtual_server_size", 3));
	test_nrt(NRT_INVALID,
		 "enc_init_global_comm: virtual server size 3 is not a divisor of world size 4 (EINVAL)",
		 enc_init_global_comm(0, 0, 4, 0, "", false));
	ASSERT_EQ(0, encd_param_set("virtual_server_size", 0));
	ASSERT_EQ(0, encd_param_set("pod_type", ENCD_POD_TYPE_P2P));
	ASSERT_EQ(0, encd_param_set("pod_sz", 2));
	ASSERT_EQ(0, encd_param_set("pod_node_id", 2));
	test_nrt(NRT_INVALID,
		 "enc_init_global_comm: Invalid pod_node_id: 2 (pod_size: 2) pod_type:1 (EINVAL)",
		 enc_init_global_comm(0, 0, 4, 0, "", false));
	ASSERT_EQ(0, encd_host_params_reset());
}

TEST_F(libenc, null_pointers_are_invalid_with_a_sentence)
{
	const uint32_t *buf;
	uint32_t v;
	size_t size;

	test_nrt_ok(enc_init());
	test_nrt(NRT_INVALID, "enc_init_global_comm: root_comm_id is NULL",
		 enc_init_global_comm(0, 0, 1, 0, NULL, false));
	test_nrt(NRT_INVALID, "enc_validate_global_comm: root_comm_id is NULL",
		 enc_validate_global_comm(0, 0, 1, 0, NULL, false));
	test_nrt(NRT_INVALID, "enc_get_glb_device_id_and_cnt: g_device_id is NULL",
		 enc_get_glb_device_id_and_cnt(0, 0, NULL, &v));
	test_nrt(NRT_INVALID, "enc_get_glb_device_id_and_cnt: g_device_cnt is NULL",
		 enc_get_glb_device_id_and_cnt(0, 0, &v, NULL));
	test_nrt(NRT_INVALID, "enc_get_global_comm_header: hdr is NULL",
		 enc_get_global_comm_header(0, 0, NULL));
	test_nrt(NRT_INVALID, "enc_map_sem_values: buf is NULL",
		 enc_map_sem_values(0, 0, NULL, &size));
	test_nrt(NRT_INVALID, "enc_map_sem_values: size is NULL",
		 enc_map_sem_values(0, 0, &buf, NULL));
	/* nothing reached the kernel */
	test_err(ENOENT, NULL, encd_get(self->probe, 0, 0, NULL));
}

TEST_F(libenc, root_comm_id_must_fit_the_uapi_field)
{
	char root[ENCD_ROOT_COMM_ID_MAX + 1];
	struct encd_glb_comm_header hdr;

	test_nrt_ok(enc_init());
	memset(root, 'h', sizeof(root) - 1);
	root[sizeof(root) - 1] = '\0';
	test_nrt(NRT_INVALID, "enc_init_global_comm: root_comm_id is 64 bytes long, the limit is 63",
		 enc_init_global_comm(0, 0, 1, 0, root, false));

	root[ENCD_ROOT_COMM_ID_MAX - 1] = '\0';
	test_nrt_ok(enc_init_global_comm(0, 0, 1, 0, root, false));
	test_nrt_ok(enc_get_global_comm_header(0, 0, &hdr));
	ASSERT_STREQ(root, hdr.root_comm_id);
}

TEST_F(libenc, a_success_leaves_the_last_error_alone)
{
	test_nrt_ok(enc_init());
	test_nrt(NRT_INVALID, NULL, enc_release_global_comm(1, 0));
	test_nrt_ok(enc_init_global_comm(1, 0, 1, 0, "", false));
	ASSERT_EQ(0, strncmp("enc_release_global_comm: ", enc_last_error(),
			     strlen("enc_release_global_comm: ")));
}

static void *fail_in_thread(void *arg)
{
	enc_release_global_comm(31, 1);
	return strdup(enc_last_error());
}

TEST_F(libenc, the_last_error_belongs_to_each_thread)
{
	pthread_t t;
	char *other;

	test_nrt_ok(enc_init());
	test_nrt(NRT_INVALID, NULL, enc_init_global_comm(33, 0, 1, 0, "", false));
	ASSERT_EQ(0, pthread_create(&t, NULL, fail_in_thread, NULL));
	ASSERT_EQ(0, pthread_join(t, (void **)&other));
	ASSERT_STREQ("enc_release_global_comm: This file does not hold the global comm of core 31 context 1 (ENOENT)",
		     other);
	ASSERT_STREQ("enc_init_global_comm: Failed to find core 33 (ENODEV)", enc_last_error());
	free(other);
}

TEST_F(libenc, release_lets_go_and_the_last_holder_destroys)
{
	test_nrt_ok(enc_init());
	test_nrt_ok(enc_init_global_comm(2, 0, 1, 1, "", false));
	test_cmd(encd_build(self->probe, 2, 0, 1, 1, NULL));
	test_nrt_ok(enc_release_global_comm(2, 1));
	test_cmd(encd_get(self->probe, 2, 1, NULL));
	test_nrt(NRT_INVALID, NULL, enc_release_global_comm(2, 1));
	test_cmd(encd_release(self->probe, 2, 1));
	test_nrt(NRT_INVALID, "enc_get_global_comm_header: No global comm on core 2 context 1 (ENOENT)",
		 enc_get_global_comm_header(2, 1, &(struct encd_glb_comm_header){ 0 }));
}

TEST_F(libenc, destroy_releases_every_comm_of_the_process)
{
	test_nrt_ok(enc_init());
	test_nrt_ok(enc_init_global_comm(0, 0, 2, 0, "", false));
	test_nrt_ok(enc_init_global_comm(0, 1, 2, 1, "", false));
	test_nrt_ok(enc_validate_global_comm(3, 0, 1, 0, "", false));
	enc_destroy_gcomm_locks();
	test_err(ENOENT, NULL, encd_get(self->probe, 0, 0, NULL));
	test_err(ENOENT, NULL, encd_get(self->probe, 0, 1, NULL));
	test_err(ENOENT, NULL, encd_get(self->probe, 3, 0, NULL));
}

TEST_F(libenc, sem_values_are_mapped_once_per_comm)
{
	const uint32_t *a, *b;
	size_t size = 0, n;

	test_nrt_ok(enc_init());
	test_nrt_ok(enc_init_global_comm(7, 0, 1, 0, "", false));
	test_nrt_ok(enc_map_sem_values(7, 0, &a, &size));
	ASSERT_EQ(ENCD_SEM_VALUES_SIZE, size);
	ASSERT_EQ(0x10000, a[0]);
	for (n = 1; n < ENCD_SEM_VALUES_N; n++) {
		ASSERT_EQ(n, a[n]);
	}
	test_nrt_ok(enc_map_sem_values(7, 0, &b, &size));
	ASSERT_EQ(a, b);
}

TEST_F(libenc, a_rebuilt_comm_gets_a_new_mapping_and_the_old_one_stays)
{
	const uint32_t *a, *b;
	size_t size;

	test_nrt_ok(enc_init());
	test_nrt_ok(enc_init_global_comm(7, 0, 1, 0, "", false));
	test_nrt_ok(enc_map_sem_values(7, 0, &a, &size));
	test_nrt_ok(enc_release_global_comm(7, 0));
	test_nrt_ok(enc_init_global_comm(7, 0, 2, 0, "", false));
	test_nrt_ok(enc_map_sem_values(7, 0, &b, &size));
	ASSERT_NE(a, b);
	ASSERT_EQ(128, a[128]);
	ASSERT_EQ(128, b[128]);
}

TEST_F(libenc, sem_values_need_a_comm_this_process_holds)
{
	const uint32_t *buf;
	size_t size;

	test_nrt_ok(enc_init());
	test_nrt(NRT_INVALID, "enc_map_sem_values: No global comm on core 8 context 0 (ENOENT)",
		 enc_map_sem_values(8, 0, &buf, &size));

	/* held by another open file, not the library's */
	test_cmd(encd_build(self->probe, 8, 0, 1, 0, NULL));
	test_nrt(NRT_INVALID,
		 "global comm failed to mmap memory for the semaphore increment value buffer: "
		 "enc_map_sem_values: mmap of core 8 context 0: No such file or directory (ENOENT)",
		 enc_map_sem_values(8, 0, &buf, &size));
}

TEST_F(libenc, destroy_unmaps_the_sem_values)
{
	const uint32_t *buf;
	size_t size, page = getpagesize();

	test_nrt_ok(enc_init());
	test_nrt_ok(enc_init_global_comm(7, 0, 1, 0, "", false));
	test_nrt_ok(enc_map_sem_values(7, 0, &buf, &size));
	ASSERT_EQ(0, msync((void *)buf, page, MS_ASYNC));
	enc_destroy_gcomm_locks();
	/* msync of an unmapped range is ENOMEM */
	ASSERT_EQ(-1, msync((void *)buf, page, MS_ASYNC));
	ASSERT_EQ(ENOMEM, errno);
}

TEST_F(libenc, errno_maps_to_the_sdks_status)
{
	const struct {
		int err;
		NRT_STATUS st;
	} map[] = {
		{ 0, NRT_SUCCESS },
		{ EINVAL, NRT_INVALID }, { E2BIG, NRT_INVALID }, { ERANGE, NRT_INVALID },
		{ ENODEV, NRT_INVALID }, { ENOENT, NRT_INVALID },
		{ ENOMEM, NRT_FAIL_HOST_MEM_ALLOC },
		{ ETIMEDOUT, NRT_TIMEOUT },
		{ EBUSY, NRT_RESOURCE }, { ENOSPC, NRT_RESOURCE }, { EMFILE, NRT_RESOURCE },
		{ EBADF, NRT_INVALID_HANDLE },
		{ EOPNOTSUPP, NRT_FAILURE }, { EFAULT, NRT_FAILURE }, { ENOTTY, NRT_FAILURE },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		ASSERT_EQ(map[i].st, enc_status_from_errno(map[i].err)) {
			TH_LOG("errno %d", map[i].err);
		}
	}
	/* the SDK's numbers */
	ASSERT_EQ(0, NRT_SUCCESS);
	ASSERT_EQ(1, NRT_FAILURE);
	ASSERT_EQ(2, NRT_INVALID);
	ASSERT_EQ(3, NRT_INVALID_HANDLE);
	ASSERT_EQ(4, NRT_RESOURCE);
	ASSERT_EQ(5, NRT_TIMEOUT);
	ASSERT_EQ(11, NRT_FAIL_HOST_MEM_ALLOC);
	ASSERT_EQ(13, NRT_UNINITIALIZED);
	ASSERT_EQ(14, NRT_CLOSED);
	ASSERT_STREQ("NRT_CLOSED", enc_status_name(NRT_CLOSED));
	ASSERT_STREQ("NRT_FAIL_HOST_MEM_ALLOC", enc_status_name(NRT_FAIL_HOST_MEM_ALLOC));
}

TEST_F(libenc, enc_ioctl_words_failures_for_other_lib_files)
{
	struct encd_version ver = { .head.flags = 4 };

	test_nrt_ok(enc_init());
	test_nrt(NRT_FAILURE, "ENCD_IOC_VERSION: Unknown flags 0x4 (EOPNOTSUPP)",
		 enc_ioctl(ENCD_IOC_VERSION, &ver, sizeof(ver), "ENCD_IOC_VERSION"));
	/* no sentence from the kernel: strerror stands in */
	test_nrt(NRT_FAILURE, "unknown: Inappropriate ioctl for device (ENOTTY)",
		 enc_ioctl(_IO(ENCD_TYPE, 0xff), &ver, sizeof(ver), "unknown"));
	test_nrt(NRT_INVALID, "short: Invalid argument (EINVAL)",
		 enc_ioctl(ENCD_IOC_VERSION, &ver, 4, "short"));
	/* the struct keeps no pointer to enc_ioctl's stack */
	ASSERT_EQ(0, ver.head.msg_uptr);
	ASSERT_EQ(0, ver.head.msg_len);
	ASSERT_EQ(NRT_INVALID, enc_set_error(NRT_INVALID, "set by %s", "hand"));
	ASSERT_STREQ("set by hand", enc_last_error());
}

struct lib_racer {
	pthread_t thread;
	pthread_barrier_t *start;
	NRT_STATUS init, build;
	__u64 serial;
};

static void *lib_race(void *arg)
{
	struct lib_racer *r = arg;
	struct encd_glb_comm_header hdr = { 0 };

	pthread_barrier_wait(r->start);
	r->init = enc_init();
	r->build = enc_init_global_comm(9, 3, 4, 1, ENCD_TEST_ROOT, false);
	if (!enc_get_global_comm_header(9, 1, &hdr))
		r->serial = hdr.serial;
	return NULL;
}

TEST_F(libenc, threads_racing_init_and_build_share_one_device_and_comm)
{
	struct lib_racer r[THREADS];
	struct encd_glb_comm_header hdr;
	pthread_barrier_t start;
	int i;

	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, THREADS));
	for (i = 0; i < THREADS; i++) {
		r[i] = (struct lib_racer) { .start = &start };
		ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, lib_race, &r[i]));
	}
	for (i = 0; i < THREADS; i++) {
		ASSERT_EQ(0, pthread_join(r[i].thread, NULL));
	}

	test_cmd(encd_get(self->probe, 9, 1, &hdr));
	ASSERT_EQ(1, hdr.holders);
	for (i = 0; i < THREADS; i++) {
		ASSERT_EQ(NRT_SUCCESS, r[i].init);
		ASSERT_EQ(NRT_SUCCESS, r[i].build);
		ASSERT_EQ(hdr.serial, r[i].serial);
	}
	pthread_barrier_destroy(&start);
}

struct closing_racer {
	pthread_t thread;
	volatile bool *stop;
	int bad;	/* a status other than success, CLOSED or no comm */
	NRT_STATUS last_bad;
	char msg[ENC_ERR_MAX];
};

static void closing_check(struct closing_racer *r, NRT_STATUS st)
{
	if (st == NRT_SUCCESS || st == NRT_CLOSED || st == NRT_INVALID)
		return;
	r->bad++;
	r->last_bad = st;
	snprintf(r->msg, sizeof(r->msg), "%s", enc_last_error());
}

static void *use_while_closing(void *arg)
{
	struct closing_racer *r = arg;
	const uint32_t *buf;
	uint32_t id, cnt;
	size_t size;

	/*
	 * Only the statuses: a buffer may be unmapped by the next destroy as
	 * soon as it is handed out, so reading it here would be the test's bug.
	 */
	while (!*r->stop) {
		closing_check(r, enc_get_glb_device_id_and_cnt(10, 0, &id, &cnt));
		closing_check(r, enc_map_sem_values(10, 0, &buf, &size));
	}
	return NULL;
}

/* Closing under running calls neither crashes them nor leaks what they map. */
TEST_F(libenc, destroy_while_other_threads_call_is_safe)
{
	struct closing_racer r[4];
	volatile bool stop = false;
	int i, round;

	/* open before the threads start: they may see it closed, never uninitialized */
	test_nrt_ok(enc_init());
	for (i = 0; i < 4; i++) {
		r[i] = (struct closing_racer) { .stop = &stop };
		ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, use_while_closing, &r[i]));
	}
	for (round = 0; round < 200; round++) {
		test_nrt_ok(enc_init());
		test_nrt_ok(enc_init_global_comm(10, 0, 1, 0, "", false));
		enc_destroy_gcomm_locks();
	}
	stop = true;
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(r[i].thread, NULL));
		ASSERT_EQ(0, r[i].bad) {
			TH_LOG("thread %d: %d times %s, last: %s", i, r[i].bad,
			       enc_status_name(r[i].last_bad), r[i].msg);
		}
	}
	test_err(ENOENT, NULL, encd_get(self->probe, 10, 0, NULL));
}

TEST_HARNESS_MAIN
