// SPDX-License-Identifier: GPL-2.0
/*
 * gcomm-demo: makes this host a rank on several NeuronCores of one
 * collective world through libenc, and prints the global comms the kernel
 * keeps for them. tools/demo.sh runs it in the VM.
 *
 *   gcomm-demo [-c CORES] [-f FIRST_ID] [-w WORLD] [-x CTX] [-r ROOT] [-s]
 *
 * Core vnc (0..CORES-1) becomes global device FIRST_ID + vnc of a world of
 * WORLD ranks, in context CTX, rooted at ROOT; -s turns on signature checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <enc/enc.h>

#define SEM_SHOWN	4

/* One row per comm; the heading uses the same widths. */
#define ROW_FMT		"%3u %7d %3u %10s %3d %8d %7d %-9s %6llu %7u "
#define HEAD_FMT	"%3s %7s %3s %10s %3s %8s %7s %-9s %6s %7s %s\n"

static const char *pod_type_name(uint32_t type)
{
	switch (type) {
	case ENCD_POD_TYPE_NONE:
		return "none";
	case ENCD_POD_TYPE_P2P:
		return "p2p";
	case ENCD_POD_TYPE_SWITCH:
		return "switch";
	}
	return "?";
}

static int fail(const char *what, NRT_STATUS st)
{
	fprintf(stderr, "gcomm-demo: %s: %s: %s\n", what, enc_status_name(st), enc_last_error());
	return 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gcomm-demo [-c CORES] [-f FIRST_ID] [-w WORLD] [-x CTX] [-r ROOT] [-s]\n");
	exit(2);
}

static int print_comm(uint32_t vnc, uint32_t ctx)
{
	struct encd_glb_comm_header h;
	const uint32_t *sem;
	char pod[32], rank[24];
	size_t size;
	NRT_STATUS st;
	int i;

	st = enc_get_global_comm_header(vnc, ctx, &h);
	if (st)
		return fail("enc_get_global_comm_header", st);
	st = enc_map_sem_values(vnc, ctx, &sem, &size);
	if (st)
		return fail("enc_map_sem_values", st);
	if (size != ENCD_SEM_VALUES_SIZE) {
		fprintf(stderr, "gcomm-demo: the semaphore buffer is %zu bytes, not %d\n", size,
			ENCD_SEM_VALUES_SIZE);
		return 1;
	}

	snprintf(pod, sizeof(pod), "%s %u/%u", pod_type_name(h.pod_type), h.pod_node_id,
		 h.pod_sz);
	snprintf(rank, sizeof(rank), "%u/%u", h.g_device_id, h.g_device_cnt);
	printf(ROW_FMT "%#x", vnc, h.nec_dev_id, h.ctx_id, rank, h.mla_idx, h.host_device_id,
	       h.routing_id, pod, (unsigned long long)h.serial, h.holders, sem[0]);
	for (i = 1; i < SEM_SHOWN; i++)
		printf(" %u", sem[i]);
	printf(" ... %u\n", sem[ENCD_SEM_VALUES_N - 1]);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t cores = 8, first = 0, world = 16, ctx = 0, vnc;
	const char *root = "127.0.0.1:61000";
	bool check_sigs = false;
	NRT_STATUS st;
	int opt, err = 0;

	while ((opt = getopt(argc, argv, "c:f:w:x:r:s")) != -1) {
		switch (opt) {
		case 'c':
			cores = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			first = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			world = strtoul(optarg, NULL, 0);
			break;
		case 'x':
			ctx = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			root = optarg;
			break;
		case 's':
			check_sigs = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	st = enc_init();
	if (st)
		return fail("enc_init", st);

	for (vnc = 0; vnc < cores; vnc++) {
		st = enc_init_global_comm(vnc, first + vnc, world, ctx, root, check_sigs);
		if (st) {
			err = fail("enc_init_global_comm", st);
			goto out;
		}
	}

	printf("global comms of world %u rooted at %s, context %u (semaphore buffers: %d values):\n",
	       world, root, ctx, ENCD_SEM_VALUES_N);
	printf(HEAD_FMT, "vnc", "nec_dev", "ctx", "rank/world", "mla", "host_dev", "routing",
	       "pod", "serial", "holders", "semaphore increments");
	for (vnc = 0; vnc < cores && !err; vnc++)
		err = print_comm(vnc, ctx);
out:
	/* the comms die with the last holder: this process */
	enc_destroy_gcomm_locks();
	return err;
}
