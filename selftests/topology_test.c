// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated topology under non-default load-time parameters
 * (topology_test.modparams: num_vcores=8 vcores_per_device=4): how many cores
 * exist, how a core's device, host device and routing id follow from its
 * index, and that those parameters cannot change while the module is loaded.
 * Being a program of few failures, it also checks that a failure's sentence
 * reaches the kernel log, which the module rate-limits.
 */
#include "encd_test.h"

#define VCORES		8
#define PER_DEVICE	4

FIXTURE(topology) {
	int fd;
};

FIXTURE_SETUP(topology)
{
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(topology)
{
	close(self->fd);
}

TEST_F(topology, version_reports_the_loaded_number_of_cores)
{
	struct encd_version ver = { 0 };

	test_cmd(encd_cmd(self->fd, ENCD_IOC_VERSION, &ver, sizeof(ver)));
	ASSERT_EQ(VCORES, ver.num_vcores);
}

TEST_F(topology, cores_are_grouped_by_vcores_per_device)
{
	struct encd_glb_comm_header hdr;
	__u32 vnc;

	for (vnc = 0; vnc < VCORES; vnc++) {
		test_cmd(encd_build(self->fd, vnc, vnc, VCORES, 0, NULL));
		test_cmd(encd_get(self->fd, vnc, 0, &hdr));
		ASSERT_EQ(vnc, hdr.nec_dev_id);
		ASSERT_EQ(vnc, hdr.vtpb_idx);
		ASSERT_EQ(vnc / PER_DEVICE, hdr.mla_idx);
		ASSERT_EQ(vnc / PER_DEVICE, hdr.host_device_id);
		/* devices are routed in the reverse order of their index */
		ASSERT_EQ(VCORES / PER_DEVICE - 1 - vnc / PER_DEVICE, hdr.routing_id);
	}
}

TEST_F(topology, the_first_core_past_the_last_is_unknown)
{
	test_err(ENODEV, "Failed to find core 8", encd_build(self->fd, VCORES, 0, 1, 0, NULL));
	test_err(ENODEV, "Failed to find core 8", encd_get(self->fd, VCORES, 0, NULL));
}

TEST_F(topology, load_time_parameters_are_read_only)
{
	ASSERT_EQ(EACCES, encd_param_set("num_vcores", 16));
	ASSERT_EQ(EACCES, encd_param_set("vcores_per_device", 1));
}

/* Whether a kernel log record after @kmsg's position contains @text. */
static bool kmsg_has(int kmsg, const char *text)
{
	char rec[2048];
	ssize_t n;

	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records were overwritten: go on */
		if (n <= 0)
			return false;
		rec[n] = '\0';
		if (strstr(rec, text))
			return true;
	}
}

TEST_F(topology, a_failure_sentence_also_reaches_the_kernel_log)
{
	int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	ASSERT_LE(0, kmsg);
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	test_err(ENODEV, "Failed to find core 77", encd_get(self->fd, 77, 1, NULL));
	ASSERT_TRUE(kmsg_has(kmsg, "Failed to find core 77"));
	close(kmsg);
}

TEST_HARNESS_MAIN
