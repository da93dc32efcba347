// SPDX-License-Identifier: GPL-2.0
/*
 * The global communicator through raw ioctls: libnrt's
 * enc_init_global_comm (BUILD), enc_validate_global_comm (VALIDATE), the
 * read-only header (GET), holders and release, the topology a comm records,
 * the pod table and the virtual-server divisor; and whose a comm is: its
 * builder's user (or encd's loopback_group), alone, with a cap on how many
 * comms one user holds.
 */
#include <unistd.h>

#include "encd_test.h"

FIXTURE(gcomm) {
	int fd;
	int fd2;	/* a second holder, as another process would be */
};

FIXTURE_SETUP(gcomm)
{
	ASSERT_EQ(0, encd_host_params_reset());
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
	self->fd2 = encd_open();
	ASSERT_LE(0, self->fd2);
}

FIXTURE_TEARDOWN(gcomm)
{
	close(self->fd);
	close(self->fd2);
	EXPECT_EQ(0, encd_host_params_reset());
	EXPECT_EQ(0, encd_param_set("max_comms_per_user", 0));
	EXPECT_EQ(0, encd_write_str(ENCD_PARAMS "loopback_group", "-1"));
}

TEST_F(gcomm, build_creates_comm_with_libnrts_identity)
{
	struct encd_glb_comm_header hdr;
	struct encd_global_comm_req req;
	const __u8 *pad;
	size_t i;

	test_cmd(encd_gcomm(self->fd, ENCD_IOC_BUILD_GLOBAL_COMM, ENCD_GCOMM_CHECK_SIGS,
			    5, 3, 8, 0, &req));
	ASSERT_EQ(ENCD_GCOMM_OUT_CREATED, req.out_flags);
	ASSERT_EQ(5, req.nec_dev_id);

	test_cmd(encd_get(self->fd, 5, 0, &hdr));
	ASSERT_EQ(3, hdr.g_device_id);
	ASSERT_EQ(8, hdr.g_device_cnt);
	ASSERT_EQ(5, hdr.vtpb_idx);
	ASSERT_EQ(5, hdr.nec_dev_id);
	ASSERT_EQ(2, hdr.mla_idx);
	ASSERT_EQ(2, hdr.host_device_id);
	ASSERT_EQ(ENCD_DEFAULT_VCORES / 2 - 1 - 2, hdr.routing_id);
	ASSERT_EQ(0, hdr.virtual_server_id);
	ASSERT_EQ(ENCD_POD_TYPE_NONE, hdr.pod_type);
	ASSERT_EQ(0, hdr.pod_node_id);
	ASSERT_EQ(0, hdr.pod_sz);
	ASSERT_EQ(0, hdr.reservation_id);
	ASSERT_EQ(0, hdr.__root_comm_id_ptr);
	ASSERT_EQ(1, hdr.check_sigs);
	/* slot 5 * 2 + 0: one page per (core, context) */
	ASSERT_EQ(10 * getpagesize(), hdr.inc_recv_sem_values_buffer);
	ASSERT_EQ(516, hdr.inc_recv_sem_values_buffer_size);
	ASSERT_NE(0, hdr.serial);
	ASSERT_EQ(1, hdr.holders);
	ASSERT_EQ(ENCD_GCOMM_BUILT, hdr.state);
	ASSERT_EQ(0, hdr.ctx_id);
	ASSERT_STREQ(ENCD_TEST_ROOT, hdr.root_comm_id);

	/* padding is zero, so it can become fields later */
	ASSERT_EQ(0, hdr.__pad0);
	ASSERT_EQ(0, hdr.__pad2);
	pad = hdr.__pad1;
	for (i = 0; i < sizeof(hdr.__pad1); i++) {
		ASSERT_EQ(0, pad[i]);
	}
}

TEST_F(gcomm, build_without_check_sigs_records_it_off)
{
	struct encd_glb_comm_header hdr;

	test_cmd(encd_build(self->fd, 1, 0, 2, 1, NULL));
	test_cmd(encd_get(self->fd, 1, 1, &hdr));
	ASSERT_EQ(0, hdr.check_sigs);
	ASSERT_EQ(1, hdr.ctx_id);
	/* slot 1 * 2 + 1 */
	ASSERT_EQ(3 * getpagesize(), hdr.inc_recv_sem_values_buffer);
}

TEST_F(gcomm, every_core_derives_its_topology_from_its_index)
{
	struct encd_glb_comm_header hdr;
	struct encd_version ver = { 0 };
	__u32 vnc, n;

	test_cmd(encd_cmd(self->fd, ENCD_IOC_VERSION, &ver, sizeof(ver)));
	n = ver.num_vcores;
	ASSERT_EQ(ENCD_DEFAULT_VCORES, n);

	for (vnc = 0; vnc < n; vnc++) {
		test_cmd(encd_build(self->fd, vnc, vnc, n, 1, NULL));
		test_cmd(encd_get(self->fd, vnc, 1, &hdr));
		ASSERT_EQ(vnc, hdr.nec_dev_id);
		ASSERT_EQ(vnc, hdr.vtpb_idx);
		ASSERT_EQ(vnc / 2, hdr.mla_idx);
		ASSERT_EQ(vnc / 2, hdr.host_device_id);
		ASSERT_EQ(n / 2 - 1 - vnc / 2, hdr.routing_id);
		test_cmd(encd_release(self->fd, vnc, 1));
	}
}

TEST_F(gcomm, unknown_core_is_rejected_by_every_command)
{
	test_why(ENODEV, ENCD_REASON_NO_CORE, "Failed to find core 32",
		 encd_build(self->fd, 32, 0, 1, 0, NULL));
	test_err(ENODEV, "Failed to find core 32", encd_validate(self->fd, 32, 0, 1, 0, NULL));
	test_err(ENODEV, "Failed to find core 32", encd_get(self->fd, 32, 0, NULL));
	test_err(ENODEV, "Failed to find core 32", encd_release(self->fd, 32, 0));
	test_err(ENODEV, "Failed to find core 4294967295",
		 encd_build(self->fd, UINT32_MAX, 0, 1, 0, NULL));
}

TEST_F(gcomm, context_id_must_be_below_max_contexts)
{
	test_err(EINVAL, "Invalid context id 2 (there are 2)",
		 encd_build(self->fd, 0, 0, 1, 2, NULL));
	test_err(EINVAL, "Invalid context id 2 (there are 2)",
		 encd_validate(self->fd, 0, 0, 1, 2, NULL));
	test_err(EINVAL, "Invalid context id 2 (there are 2)", encd_get(self->fd, 0, 2, NULL));
	test_err(EINVAL, "Invalid context id 2 (there are 2)", encd_release(self->fd, 0, 2));
	test_err(EINVAL, "Invalid context id 4294967295 (there are 2)",
		 encd_build(self->fd, 0, 0, 1, UINT32_MAX, NULL));
}

TEST_F(gcomm, world_size_zero_is_rejected)
{
	test_err(EINVAL, "Invalid world size 0", encd_build(self->fd, 0, 0, 0, 0, NULL));
	test_err(EINVAL, "Invalid world size 0", encd_validate(self->fd, 0, 0, 0, 0, NULL));
	test_err(ENOENT, NULL, encd_get(self->fd, 0, 0, NULL));
}

TEST_F(gcomm, device_id_must_be_inside_the_world)
{
	test_err(EINVAL, "Invalid global device id 4 for a world of 4",
		 encd_build(self->fd, 0, 4, 4, 0, NULL));
	test_err(EINVAL, "Invalid global device id 4294967295 for a world of 4",
		 encd_build(self->fd, 0, UINT32_MAX, 4, 0, NULL));
	test_err(ENOENT, NULL, encd_get(self->fd, 0, 0, NULL));
	test_cmd(encd_build(self->fd, 0, 3, 4, 0, NULL));
}

TEST_F(gcomm, root_comm_id_without_nul_is_rejected)
{
	struct encd_global_comm_req req = { .vnc = 2, .g_device_cnt = 1 };

	memset(req.root_comm_id, 'a', sizeof(req.root_comm_id));
	test_err(EINVAL, "root_comm_id is longer than 63 bytes",
		 encd_cmd(self->fd, ENCD_IOC_BUILD_GLOBAL_COMM, &req, sizeof(req)));
	test_err(EINVAL, "root_comm_id is longer than 63 bytes",
		 encd_cmd(self->fd, ENCD_IOC_VALIDATE_GLOBAL_COMM, &req, sizeof(req)));
	test_err(ENOENT, NULL, encd_get(self->fd, 2, 0, NULL));
}

TEST_F(gcomm, root_comm_id_of_63_bytes_is_kept_whole)
{
	struct encd_global_comm_req req = { .vnc = 2, .g_device_cnt = 1 };
	struct encd_glb_comm_header hdr;
	char want[ENCD_ROOT_COMM_ID_MAX];

	memset(want, 'r', sizeof(want) - 1);
	want[sizeof(want) - 1] = '\0';
	memcpy(req.root_comm_id, want, sizeof(want));
	test_cmd(encd_cmd(self->fd, ENCD_IOC_BUILD_GLOBAL_COMM, &req, sizeof(req)));
	test_cmd(encd_get(self->fd, 2, 0, &hdr));
	ASSERT_STREQ(want, hdr.root_comm_id);
}

TEST_F(gcomm, empty_root_comm_id_is_allowed)
{
	struct encd_global_comm_req req = { .vnc = 2, .g_device_cnt = 1 };
	struct encd_glb_comm_header hdr;

	test_cmd(encd_cmd(self->fd, ENCD_IOC_BUILD_GLOBAL_COMM, &req, sizeof(req)));
	test_cmd(encd_get(self->fd, 2, 0, &hdr));
	ASSERT_STREQ("", hdr.root_comm_id);
}

TEST_F(gcomm, same_world_again_attaches_without_a_new_object)
{
	struct encd_glb_comm_header hdr;
	__u32 out;
	__u64 serial;

	test_cmd(encd_build(self->fd, 6, 1, 4, 0, &out));
	ASSERT_EQ(ENCD_GCOMM_OUT_CREATED, out);
	serial = encd_serial(self->fd, 6, 0);

	/* the same fd again: still one holder */
	test_cmd(encd_build(self->fd, 6, 1, 4, 0, &out));
	ASSERT_EQ(0, out);
	test_cmd(encd_get(self->fd, 6, 0, &hdr));
	ASSERT_EQ(serial, hdr.serial);
	ASSERT_EQ(1, hdr.holders);

	/* another fd: a second holder of the same object */
	test_cmd(encd_build(self->fd2, 6, 1, 4, 0, &out));
	ASSERT_EQ(0, out);
	test_cmd(encd_get(self->fd, 6, 0, &hdr));
	ASSERT_EQ(serial, hdr.serial);
	ASSERT_EQ(2, hdr.holders);
}

TEST_F(gcomm, another_world_size_is_rejected)
{
	test_cmd(encd_build(self->fd, 5, 3, 8, 0, NULL));
	test_err_prefix(EINVAL, "NRT has already been setup with a collectives world size of 8",
			encd_build(self->fd2, 5, 3, 4, 0, NULL));
	test_err_prefix(EINVAL, "NRT has already been setup with a collectives world size of 8",
			encd_build(self->fd, 5, 3, 16, 0, NULL));
	ASSERT_EQ(ENCD_REASON_WORLD_DIFFERS, encd_reason);
	/* the loser holds nothing */
	test_err(ENOENT, NULL, encd_release(self->fd2, 5, 0));
}

TEST_F(gcomm, another_device_id_in_the_same_world_is_rejected)
{
	test_cmd(encd_build(self->fd, 5, 3, 8, 0, NULL));
	test_err_prefix(EINVAL, "NRT has already been setup with a collectives world size of 8",
			encd_build(self->fd2, 5, 4, 8, 0, NULL));
}

TEST_F(gcomm, contexts_are_separate_slots)
{
	struct encd_glb_comm_header h0, h1;

	test_cmd(encd_build(self->fd, 3, 0, 2, 0, NULL));
	test_cmd(encd_build(self->fd, 3, 5, 6, 1, NULL));
	test_cmd(encd_get(self->fd, 3, 0, &h0));
	test_cmd(encd_get(self->fd, 3, 1, &h1));
	ASSERT_EQ(2, h0.g_device_cnt);
	ASSERT_EQ(6, h1.g_device_cnt);
	ASSERT_NE(h0.serial, h1.serial);
	ASSERT_NE(h0.inc_recv_sem_values_buffer, h1.inc_recv_sem_values_buffer);

	test_cmd(encd_release(self->fd, 3, 0));
	test_err(ENOENT, NULL, encd_get(self->fd, 3, 0, NULL));
	test_cmd(encd_get(self->fd, 3, 1, NULL));
}

TEST_F(gcomm, cores_are_separate)
{
	test_cmd(encd_build(self->fd, 8, 0, 2, 0, NULL));
	test_cmd(encd_build(self->fd, 9, 1, 2, 0, NULL));
	ASSERT_NE(encd_serial(self->fd, 8, 0), encd_serial(self->fd, 9, 0));
	test_err(ENOENT, "No global comm on core 10 context 0", encd_get(self->fd, 10, 0, NULL));
}

TEST_F(gcomm, get_of_an_absent_comm_is_enoent)
{
	test_err(ENOENT, "No global comm on core 3 context 1", encd_get(self->fd, 3, 1, NULL));
}

TEST_F(gcomm, get_does_not_need_to_hold_the_comm)
{
	struct encd_glb_comm_header hdr;

	test_cmd(encd_build(self->fd, 4, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd2, 4, 0, &hdr));
	ASSERT_EQ(1, hdr.holders);
	test_err(ENOENT, "This file does not hold the global comm of core 4 context 0",
		 encd_release(self->fd2, 4, 0));
}

TEST_F(gcomm, release_without_a_comm_is_enoent)
{
	test_err(ENOENT, "This file does not hold the global comm of core 4 context 1",
		 encd_release(self->fd, 4, 1));
}

TEST_F(gcomm, last_release_destroys_the_comm)
{
	test_cmd(encd_build(self->fd, 4, 0, 1, 0, NULL));
	test_cmd(encd_release(self->fd, 4, 0));
	test_err(ENOENT, "No global comm on core 4 context 0", encd_get(self->fd, 4, 0, NULL));
	test_err(ENOENT, NULL, encd_release(self->fd, 4, 0));
}

TEST_F(gcomm, release_leaves_the_comm_to_its_other_holders)
{
	struct encd_glb_comm_header hdr;
	__u64 serial;

	test_cmd(encd_build(self->fd, 4, 0, 1, 0, NULL));
	test_cmd(encd_build(self->fd2, 4, 0, 1, 0, NULL));
	serial = encd_serial(self->fd, 4, 0);

	test_cmd(encd_release(self->fd, 4, 0));
	test_cmd(encd_get(self->fd, 4, 0, &hdr));
	ASSERT_EQ(serial, hdr.serial);
	ASSERT_EQ(1, hdr.holders);

	test_cmd(encd_release(self->fd2, 4, 0));
	test_err(ENOENT, NULL, encd_get(self->fd, 4, 0, NULL));
}

TEST_F(gcomm, closing_the_fd_releases_everything_it_holds)
{
	int probe = encd_open();

	ASSERT_LE(0, probe);
	test_cmd(encd_build(self->fd, 0, 0, 2, 0, NULL));
	test_cmd(encd_build(self->fd, 0, 0, 2, 1, NULL));
	test_cmd(encd_build(self->fd, 1, 1, 2, 0, NULL));
	close(self->fd);
	self->fd = -1;

	test_err(ENOENT, NULL, encd_get(probe, 0, 0, NULL));
	test_err(ENOENT, NULL, encd_get(probe, 0, 1, NULL));
	test_err(ENOENT, NULL, encd_get(probe, 1, 0, NULL));
	close(probe);
}

TEST_F(gcomm, closing_one_holder_keeps_the_comm_for_the_other)
{
	struct encd_glb_comm_header hdr;

	test_cmd(encd_build(self->fd, 0, 0, 2, 0, NULL));
	test_cmd(encd_build(self->fd2, 0, 0, 2, 0, NULL));
	close(self->fd);
	self->fd = -1;
	test_cmd(encd_get(self->fd2, 0, 0, &hdr));
	ASSERT_EQ(1, hdr.holders);
}

TEST_F(gcomm, a_comm_built_after_destroy_is_new_and_may_change_world)
{
	__u64 first, second;
	__u32 out;

	test_cmd(encd_build(self->fd, 7, 0, 2, 0, NULL));
	first = encd_serial(self->fd, 7, 0);
	test_cmd(encd_release(self->fd, 7, 0));

	test_cmd(encd_build(self->fd, 7, 5, 16, 0, &out));
	ASSERT_EQ(ENCD_GCOMM_OUT_CREATED, out);
	second = encd_serial(self->fd, 7, 0);
	ASSERT_LT(first, second);
}

TEST_F(gcomm, the_identity_is_fixed_when_the_comm_is_made)
{
	struct encd_glb_comm_header hdr;

	ASSERT_EQ(0, encd_param_set("pod_type", ENCD_POD_TYPE_P2P));
	ASSERT_EQ(0, encd_param_set("pod_sz", 4));
	ASSERT_EQ(0, encd_param_set("pod_node_id", 3));
	ASSERT_EQ(0, encd_param_set("reservation_id", 0x123456789abcULL));
	ASSERT_EQ(0, encd_param_set("virtual_server_size", 2));
	test_cmd(encd_build(self->fd, 11, 5, 8, 0, NULL));

	ASSERT_EQ(0, encd_host_params_reset());
	test_cmd(encd_build(self->fd2, 11, 5, 8, 0, NULL));
	test_cmd(encd_get(self->fd, 11, 0, &hdr));
	ASSERT_EQ(ENCD_POD_TYPE_P2P, hdr.pod_type);
	ASSERT_EQ(4, hdr.pod_sz);
	ASSERT_EQ(3, hdr.pod_node_id);
	ASSERT_EQ(0x123456789abcULL, hdr.reservation_id);
	ASSERT_EQ(2, hdr.virtual_server_id);
}

/* libnrt looks the comm up before it checks the host's topology. */
TEST_F(gcomm, an_existing_world_is_joined_before_topology_checks)
{
	__u32 out;

	test_cmd(encd_build(self->fd, 12, 1, 8, 0, NULL));
	ASSERT_EQ(0, encd_param_set("virtual_server_size", 3));
	ASSERT_EQ(0, encd_param_set("pod_type", 7));

	test_cmd(encd_build(self->fd2, 12, 1, 8, 0, &out));
	ASSERT_EQ(0, out);
	test_cmd(encd_validate(self->fd2, 12, 1, 8, 0, &out));
	ASSERT_EQ(0, out);
}

/* libnrt checks the virtual server size before the pod. */
TEST_F(gcomm, virtual_server_size_is_checked_before_the_pod)
{
	ASSERT_EQ(0, encd_param_set("virtual_server_size", 3));
	ASSERT_EQ(0, encd_param_set("pod_type", 7));
	test_err(EINVAL, "virtual server size 3 is not a divisor of world size 8",
		 encd_build(self->fd, 12, 1, 8, 0, NULL));
}

TEST_F(gcomm, validate_without_a_comm_builds_it)
{
	struct encd_global_comm_req req;
	struct encd_glb_comm_header hdr;

	test_cmd(encd_gcomm(self->fd, ENCD_IOC_VALIDATE_GLOBAL_COMM, ENCD_GCOMM_CHECK_SIGS,
			    13, 2, 4, 1, &req));
	ASSERT_EQ(ENCD_GCOMM_OUT_CREATED, req.out_flags);
	ASSERT_EQ(13, req.nec_dev_id);
	test_cmd(encd_get(self->fd, 13, 1, &hdr));
	ASSERT_EQ(2, hdr.g_device_id);
	ASSERT_EQ(4, hdr.g_device_cnt);
	ASSERT_EQ(1, hdr.check_sigs);
	ASSERT_EQ(1, hdr.holders);
	test_cmd(encd_release(self->fd, 13, 1));
}

TEST_F(gcomm, validate_without_a_comm_checks_like_build)
{
	test_err(EINVAL, "Invalid world size 0", encd_validate(self->fd, 13, 0, 0, 0, NULL));
	test_err(EINVAL, "Invalid global device id 9 for a world of 9",
		 encd_validate(self->fd, 13, 9, 9, 0, NULL));
	ASSERT_EQ(0, encd_param_set("pod_type", 3));
	test_why(EINVAL, ENCD_REASON_TOPOLOGY, "Invalid pod_type: 3",
		 encd_validate(self->fd, 13, 0, 1, 0, NULL));
	test_err(ENOENT, NULL, encd_get(self->fd, 13, 0, NULL));
}

TEST_F(gcomm, validate_rejects_a_neff_world_larger_than_the_comm)
{
	test_cmd(encd_build(self->fd, 14, 0, 8, 0, NULL));
	test_err(EINVAL,
		 "World size of neff 16 is greater than world size of global communicator 8",
		 encd_validate(self->fd2, 14, 0, 16, 0, NULL));
	test_err(ENOENT, NULL, encd_release(self->fd2, 14, 0));
}

TEST_F(gcomm, validate_passes_an_equal_neff_world_and_holds_the_comm)
{
	struct encd_glb_comm_header hdr;
	__u32 out;

	test_cmd(encd_build(self->fd, 14, 0, 8, 0, NULL));
	/* libnrt compares world sizes only, not the device id */
	test_cmd(encd_validate(self->fd2, 14, 6, 8, 0, &out));
	ASSERT_EQ(0, out);
	test_cmd(encd_get(self->fd, 14, 0, &hdr));
	ASSERT_EQ(2, hdr.holders);
	ASSERT_EQ(0, hdr.g_device_id);

	/* fd2 holds it: the comm outlives its builder */
	close(self->fd);
	self->fd = -1;
	test_cmd(encd_get(self->fd2, 14, 0, &hdr));
	ASSERT_EQ(1, hdr.holders);
}

TEST_F(gcomm, validate_rejects_a_smaller_neff_world_before_bootstrap)
{
	struct encd_glb_comm_header hdr;

	test_cmd(encd_build(self->fd, 14, 0, 8, 0, NULL));
	test_cmd(encd_get(self->fd, 14, 0, &hdr));
	ASSERT_EQ(ENCD_GCOMM_BUILT, hdr.state);
	test_err(EINVAL,
		 "World size of neff != global communicator. Recommend nrt_build_global_comm first.",
		 encd_validate(self->fd2, 14, 0, 4, 0, NULL));
	test_err(ENOENT, NULL, encd_release(self->fd2, 14, 0));
}

/*
 * libnrt's other half of the rule: once the comm has been bootstrapped, a
 * NEFF whose world is smaller than the comm's is a subset of a world that
 * exists, and passes. A world of two child ranks (cores 0 and 1) forms;
 * this process, another holder, validates a NEFF of one rank against core
 * 0's comm. encd's "bootstrapped" is the comm's state: when the rank that
 * formed the world lets go of it, the comm is BUILT again and the same
 * NEFF is refused, as before any bootstrap.
 */
#define SUBWORLD_ROOT	"127.0.0.1:46751"

TEST_F(gcomm, validate_passes_a_smaller_neff_world_once_bootstrapped)
{
	struct encd_glb_comm_header hdr;
	struct encd_world w;
	__u32 out = 0xdead;
	int i;

	ASSERT_EQ(0, encd_world_start(&w, 2, SUBWORLD_ROOT, 0, 0, 20000));
	ASSERT_EQ(2, encd_world_results(&w, 60, 5));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, w.res[i].err) {
			TH_LOG("rank %d: %s", i, w.res[i].msg);
		}
	}
	test_cmd(encd_get(self->fd, 0, 0, &hdr));
	ASSERT_EQ(ENCD_GCOMM_BOOTSTRAPPED, hdr.state);
	ASSERT_EQ(2, hdr.g_device_cnt);
	ASSERT_EQ(1, hdr.holders);

	test_cmd(encd_validate(self->fd, 0, 0, 1, 0, &out));
	ASSERT_EQ(0, out);	/* attached, not made */
	test_cmd(encd_get(self->fd, 0, 0, &hdr));
	ASSERT_EQ(2, hdr.holders);
	ASSERT_EQ(2, hdr.g_device_cnt);
	/* Larger is refused whatever the state. */
	test_err(EINVAL,
		 "World size of neff 3 is greater than world size of global communicator 2",
		 encd_validate(self->fd2, 0, 0, 3, 0, NULL));

	/* The ranks exit: their files close before they can be reaped. */
	ASSERT_EQ(0, encd_world_end(&w, 30));
	test_cmd(encd_get(self->fd, 0, 0, &hdr));
	ASSERT_EQ(ENCD_GCOMM_BUILT, hdr.state);
	ASSERT_EQ(1, hdr.holders);
	test_err(EINVAL,
		 "World size of neff != global communicator. Recommend nrt_build_global_comm first.",
		 encd_validate(self->fd2, 0, 0, 1, 0, NULL));
	test_cmd(encd_release(self->fd, 0, 0));
}

TEST_F(gcomm, reservation_id_is_64_bits_wide)
{
	struct encd_glb_comm_header hdr;

	ASSERT_EQ(0, encd_param_set("reservation_id", 0xfedcba9876543210ULL));
	test_cmd(encd_build(self->fd, 15, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, 15, 0, &hdr));
	ASSERT_EQ(0xfedcba9876543210ULL, hdr.reservation_id);
}

/*
 * libnrt's pod table: P2P nodes are bounded by pod_sz, switch nodes by 4
 * whatever pod_sz says, a pod without a type is not checked, and a type above
 * SWITCH is refused.
 */
FIXTURE(pod) {
	int fd;
};

FIXTURE_VARIANT(pod) {
	__u32 pod_type;
	__u32 pod_sz;
	__u32 pod_node_id;
	const char *err;	/* NULL: the comm is made */
};

FIXTURE_VARIANT_ADD(pod, none_ignores_the_node_id) {
	.pod_type = ENCD_POD_TYPE_NONE, .pod_sz = 0, .pod_node_id = 9,
};

FIXTURE_VARIANT_ADD(pod, p2p_node_inside_the_pod) {
	.pod_type = ENCD_POD_TYPE_P2P, .pod_sz = 2, .pod_node_id = 1,
};

FIXTURE_VARIANT_ADD(pod, p2p_node_at_pod_size) {
	.pod_type = ENCD_POD_TYPE_P2P, .pod_sz = 2, .pod_node_id = 2,
	.err = "Invalid pod_node_id: 2 (pod_size: 2) pod_type:1",
};

FIXTURE_VARIANT_ADD(pod, p2p_node_5_of_a_pod_of_8) {
	.pod_type = ENCD_POD_TYPE_P2P, .pod_sz = 8, .pod_node_id = 5,
};

FIXTURE_VARIANT_ADD(pod, p2p_empty_pod) {
	.pod_type = ENCD_POD_TYPE_P2P, .pod_sz = 0, .pod_node_id = 0,
	.err = "Invalid pod_node_id: 0 (pod_size: 0) pod_type:1",
};

FIXTURE_VARIANT_ADD(pod, switch_node_3_ignores_pod_size) {
	.pod_type = ENCD_POD_TYPE_SWITCH, .pod_sz = 1, .pod_node_id = 3,
};

FIXTURE_VARIANT_ADD(pod, switch_node_4) {
	.pod_type = ENCD_POD_TYPE_SWITCH, .pod_sz = 16, .pod_node_id = 4,
	.err = "Invalid pod_node_id: 4 (pod_size: 16) pod_type:2",
};

FIXTURE_VARIANT_ADD(pod, switch_node_5_of_a_pod_of_8) {
	.pod_type = ENCD_POD_TYPE_SWITCH, .pod_sz = 8, .pod_node_id = 5,
	.err = "Invalid pod_node_id: 5 (pod_size: 8) pod_type:2",
};

FIXTURE_VARIANT_ADD(pod, invalid_type) {
	.pod_type = ENCD_POD_TYPE_INVALID, .pod_sz = 4, .pod_node_id = 0,
	.err = "Invalid pod_type: 3",
};

FIXTURE_VARIANT_ADD(pod, largest_type) {
	.pod_type = UINT32_MAX, .pod_sz = 4, .pod_node_id = 0,
	.err = "Invalid pod_type: 4294967295",
};

FIXTURE_SETUP(pod)
{
	ASSERT_EQ(0, encd_host_params_reset());
	ASSERT_EQ(0, encd_param_set("pod_type", variant->pod_type));
	ASSERT_EQ(0, encd_param_set("pod_sz", variant->pod_sz));
	ASSERT_EQ(0, encd_param_set("pod_node_id", variant->pod_node_id));
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(pod)
{
	close(self->fd);
	EXPECT_EQ(0, encd_host_params_reset());
}

static void check_pod_result(struct __test_metadata *_metadata, int fd,
			     const FIXTURE_VARIANT(pod) *variant, int err)
{
	struct encd_glb_comm_header hdr;

	if (variant->err) {
		test_err(EINVAL, variant->err, err);
		/* nothing half-made is left behind */
		test_err(ENOENT, NULL, encd_get(fd, 20, 0, NULL));
		return;
	}
	test_cmd(err);
	test_cmd(encd_get(fd, 20, 0, &hdr));
	ASSERT_EQ(variant->pod_type, hdr.pod_type);
	ASSERT_EQ(variant->pod_sz, hdr.pod_sz);
	ASSERT_EQ(variant->pod_node_id, hdr.pod_node_id);
}

TEST_F(pod, build_applies_the_pod_bound)
{
	check_pod_result(_metadata, self->fd, variant, encd_build(self->fd, 20, 1, 4, 0, NULL));
}

TEST_F(pod, validate_without_a_comm_applies_the_pod_bound)
{
	check_pod_result(_metadata, self->fd, variant,
			 encd_validate(self->fd, 20, 1, 4, 0, NULL));
}

/* virtual_server_id = g_device_id / virtual_server_size, which must divide the world. */
FIXTURE(vserver) {
	int fd;
};

FIXTURE_VARIANT(vserver) {
	__u32 size;
	__u32 world;
	__u32 g_device_id;
	__u32 server_id;
	const char *err;
};

FIXTURE_VARIANT_ADD(vserver, none) {
	.size = 0, .world = 6, .g_device_id = 5, .server_id = 0,
};

FIXTURE_VARIANT_ADD(vserver, one_rank_per_server) {
	.size = 1, .world = 6, .g_device_id = 5, .server_id = 5,
};

FIXTURE_VARIANT_ADD(vserver, four_ranks_per_server_of_sixteen) {
	.size = 4, .world = 16, .g_device_id = 9, .server_id = 2,
};

FIXTURE_VARIANT_ADD(vserver, one_server_is_the_world) {
	.size = 16, .world = 16, .g_device_id = 15, .server_id = 0,
};

FIXTURE_VARIANT_ADD(vserver, not_a_divisor) {
	.size = 4, .world = 6, .g_device_id = 1,
	.err = "virtual server size 4 is not a divisor of world size 6",
};

FIXTURE_VARIANT_ADD(vserver, larger_than_the_world) {
	.size = 32, .world = 16, .g_device_id = 1,
	.err = "virtual server size 32 is not a divisor of world size 16",
};

FIXTURE_SETUP(vserver)
{
	ASSERT_EQ(0, encd_host_params_reset());
	ASSERT_EQ(0, encd_param_set("virtual_server_size", variant->size));
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(vserver)
{
	close(self->fd);
	EXPECT_EQ(0, encd_host_params_reset());
}

TEST_F(vserver, build_derives_the_virtual_server_id)
{
	struct encd_glb_comm_header hdr;
	int err = encd_build(self->fd, 21, variant->g_device_id, variant->world, 1, NULL);

	if (variant->err) {
		test_err(EINVAL, variant->err, err);
		test_err(ENOENT, NULL, encd_get(self->fd, 21, 1, NULL));
		return;
	}
	test_cmd(err);
	test_cmd(encd_get(self->fd, 21, 1, &hdr));
	ASSERT_EQ(variant->server_id, hdr.virtual_server_id);
}


/*
 * Whose a comm is. The tests run as root; a call "as user U" runs with
 * effective user U and effective group @gid (the saved ids stay root's, so
 * the test gets root back), through files root opened, as a launcher
 * dropping privileges would hand them down.
 */
static int become(uid_t uid, gid_t gid)
{
	return setresgid(-1, gid, -1) || setresuid(-1, uid, -1) ? errno : 0;
}

#define as_user(_uid, _gid, _err, expr)					\
	do {								\
		ASSERT_EQ(0, become(_uid, _gid));			\
		_err = (expr);						\
		ASSERT_EQ(0, become(0, 0));				\
	} while (0)

#define NOT_OWNER(core, ctx, owner, user)				\
	"Core " #core " context " #ctx " has a global comm of user " #owner ": user " #user \
	" may neither attach to it nor set it up (only its owner may, or encd's loopback_group if its owner built it as a member)"

TEST_F(gcomm, another_users_attach_is_refused_with_the_owners_uid)
{
	struct encd_glb_comm_header hdr;
	int err;

	as_user(1000, 1000, err, encd_build(self->fd, 7, 0, 2, 0, NULL));
	test_cmd(err);

	/* Another user, with the same arguments: BUILD and VALIDATE. */
	as_user(1001, 1001, err, encd_build(self->fd2, 7, 0, 2, 0, NULL));
	test_why(EACCES, ENCD_REASON_NOT_OWNER, NOT_OWNER(7, 0, 1000, 1001), err);
	as_user(1001, 1001, err, encd_validate(self->fd2, 7, 0, 2, 0, NULL));
	test_why(EACCES, ENCD_REASON_NOT_OWNER, NOT_OWNER(7, 0, 1000, 1001), err);
	/* Before the world is compared: nothing of it is told. */
	as_user(1001, 1001, err, encd_build(self->fd2, 7, 1, 4, 0, NULL));
	test_why(EACCES, ENCD_REASON_NOT_OWNER, NOT_OWNER(7, 0, 1000, 1001), err);
	/* Root is refused too: a core is never shared silently. */
	test_why(EACCES, ENCD_REASON_NOT_OWNER, NOT_OWNER(7, 0, 1000, 0),
		 encd_build(self->fd2, 7, 0, 2, 0, NULL));

	test_err(ENOENT, NULL, encd_release(self->fd2, 7, 0));
	test_cmd(encd_get(self->fd, 7, 0, &hdr));
	ASSERT_EQ(1, hdr.holders);
	/* The owner attaches from another file. */
	as_user(1000, 1000, err, encd_build(self->fd2, 7, 0, 2, 0, NULL));
	test_cmd(err);
	test_cmd(encd_get(self->fd, 7, 0, &hdr));
	ASSERT_EQ(2, hdr.holders);
}

/* A world of one forms at once: whoever sets it up first owns the rank. */
TEST_F(gcomm, another_users_setup_cannot_take_a_rank_of_the_comm)
{
	struct encd_setup_global_comm out;
	int err;

	as_user(1000, 1000, err, encd_build(self->fd, 8, 0, 1, 0, NULL));
	test_cmd(err);
	/* Not holding it, another user's file is told so. */
	as_user(1001, 1001, err, encd_setup(self->fd2, 8, 0, 0, NULL));
	test_err(ENOENT, "This file does not hold the global comm of core 8 context 0", err);
	/* Through the owner's file, handed over: refused, and no rank made. */
	as_user(1001, 1001, err, encd_setup(self->fd, 8, 0, 0, NULL));
	test_why(EACCES, ENCD_REASON_NOT_OWNER, NOT_OWNER(8, 0, 1000, 1001), err);
	test_why(EACCES, ENCD_REASON_NOT_OWNER, NOT_OWNER(8, 0, 1000, 0),
		 encd_setup(self->fd, 8, 0, 0, NULL));

	as_user(1000, 1000, err, encd_setup(self->fd, 8, 0, 0, &out));
	test_cmd(err);
	ASSERT_EQ(ENCD_SETUP_OUT_FORMED, out.out_flags);
	ASSERT_EQ(0, out.rank);
	ASSERT_EQ(1, out.rank_n);
}

TEST_F(gcomm, another_user_cannot_keep_the_core_from_its_owners_next_job)
{
	__u32 out;
	int err;

	as_user(1000, 1000, err, encd_build(self->fd, 9, 0, 2, 0, NULL));
	test_cmd(err);
	as_user(1001, 1001, err, encd_build(self->fd2, 9, 0, 2, 0, NULL));
	test_err(EACCES, NULL, err);
	/* The job ends; the next one has another world. */
	test_cmd(encd_release(self->fd, 9, 0));
	as_user(1000, 1000, err, encd_build(self->fd, 9, 1, 4, 0, &out));
	test_cmd(err);
	ASSERT_EQ(ENCD_GCOMM_OUT_CREATED, out);
}

TEST_F(gcomm, loopback_group_members_share_the_comms_they_build)
{
	struct encd_glb_comm_header hdr;
	int err;

	ASSERT_EQ(0, encd_write_str(ENCD_PARAMS "loopback_group", "4242"));
	as_user(1000, 4242, err, encd_build(self->fd, 10, 0, 2, 0, NULL));
	test_cmd(err);
	as_user(1001, 4242, err, encd_build(self->fd2, 10, 0, 2, 0, NULL));
	test_cmd(err);
	test_cmd(encd_get(self->fd, 10, 0, &hdr));
	ASSERT_EQ(2, hdr.holders);
	test_cmd(encd_release(self->fd2, 10, 0));
	/* Not in the group: the owner is still named. */
	as_user(1002, 1002, err, encd_build(self->fd2, 10, 0, 2, 0, NULL));
	test_why(EACCES, ENCD_REASON_NOT_OWNER, NOT_OWNER(10, 0, 1000, 1002), err);
	/* The administrator takes the group away: the owner's alone again. */
	ASSERT_EQ(0, encd_write_str(ENCD_PARAMS "loopback_group", "-1"));
	as_user(1001, 4242, err, encd_build(self->fd2, 10, 0, 2, 0, NULL));
	test_why(EACCES, ENCD_REASON_NOT_OWNER, NOT_OWNER(10, 0, 1000, 1001), err);
}

TEST_F(gcomm, max_comms_per_user_caps_one_user_and_names_the_cap)
{
	int err;

	ASSERT_EQ(0, encd_param_set("max_comms_per_user", 2));
	as_user(1000, 1000, err, encd_build(self->fd, 1, 0, 2, 0, NULL));
	test_cmd(err);
	as_user(1000, 1000, err, encd_build(self->fd, 2, 0, 2, 1, NULL));
	test_cmd(err);
	as_user(1000, 1000, err, encd_build(self->fd, 3, 0, 2, 0, NULL));
	test_why(EDQUOT, ENCD_REASON_USER_CAP,
		 "user 1000 holds 2 global comms, the most max_comms_per_user=2 allows", err);
	/* VALIDATE builds too; attaching to one's own comm makes none. */
	as_user(1000, 1000, err, encd_validate(self->fd2, 3, 0, 2, 0, NULL));
	test_err(EDQUOT, NULL, err);
	as_user(1000, 1000, err, encd_build(self->fd2, 1, 0, 2, 0, NULL));
	test_cmd(err);
	/* The cap is per user. */
	as_user(1001, 1001, err, encd_build(self->fd2, 3, 0, 2, 0, NULL));
	test_cmd(err);
	/* A comm let go of is one fewer; 0 is no cap. */
	test_cmd(encd_release(self->fd, 1, 0));
	test_cmd(encd_release(self->fd2, 1, 0));
	as_user(1000, 1000, err, encd_build(self->fd, 4, 0, 2, 0, NULL));
	test_cmd(err);
	as_user(1000, 1000, err, encd_build(self->fd, 5, 0, 2, 0, NULL));
	test_err(EDQUOT, NULL, err);
	ASSERT_EQ(0, encd_param_set("max_comms_per_user", 0));
	as_user(1000, 1000, err, encd_build(self->fd, 5, 0, 2, 0, NULL));
	test_cmd(err);
}

TEST_HARNESS_MAIN
