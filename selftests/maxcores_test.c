// SPDX-License-Identifier: GPL-2.0
/*
 * The largest topology (maxcores_test.modparams: num_vcores=256
 * vcores_per_device=1): the last core of the last device is usable in both
 * contexts, down to the last slot of the registry and the last mmap offset.
 */
#include <sys/mman.h>

#include "encd_test.h"

#define LAST	(ENCD_NEC_MAX_DEVICES - 1)

FIXTURE(maxcores) {
	int fd;
};

FIXTURE_SETUP(maxcores)
{
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(maxcores)
{
	close(self->fd);
}

TEST_F(maxcores, every_one_of_256_cores_is_its_own_device)
{
	struct encd_version ver = { 0 };
	struct encd_glb_comm_header hdr;

	test_cmd(encd_cmd(self->fd, ENCD_IOC_VERSION, &ver, sizeof(ver)));
	ASSERT_EQ(ENCD_NEC_MAX_DEVICES, ver.num_vcores);

	test_cmd(encd_build(self->fd, LAST, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, LAST, 0, &hdr));
	ASSERT_EQ(LAST, hdr.nec_dev_id);
	ASSERT_EQ(LAST, hdr.mla_idx);
	ASSERT_EQ(LAST, hdr.host_device_id);
	ASSERT_EQ(0, hdr.routing_id);

	test_cmd(encd_build(self->fd, 0, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, 0, 0, &hdr));
	ASSERT_EQ(LAST, hdr.routing_id);

	test_err(ENODEV, "Failed to find core 256",
		 encd_build(self->fd, ENCD_NEC_MAX_DEVICES, 0, 1, 0, NULL));
}

TEST_F(maxcores, the_last_slot_maps_at_the_last_offset)
{
	size_t page = getpagesize();
	struct encd_glb_comm_header hdr;
	__u32 *v;

	test_cmd(encd_build(self->fd, LAST, 1, 2, 1, NULL));
	test_cmd(encd_get(self->fd, LAST, 1, &hdr));
	/* slot 255 * 2 + 1, the last of the 512 */
	ASSERT_EQ(511 * page, hdr.inc_recv_sem_values_buffer);
	v = mmap(NULL, page, PROT_READ, MAP_SHARED, self->fd, hdr.inc_recv_sem_values_buffer);
	ASSERT_NE(MAP_FAILED, v);
	ASSERT_EQ(ENCD_SEM_VALUES_HEADER, v[0]);
	ASSERT_EQ(128, v[128]);
	ASSERT_EQ(0, munmap(v, page));
}

TEST_HARNESS_MAIN
