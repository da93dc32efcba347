// SPDX-License-Identifier: GPL-2.0
/*
 * encctl topo [show]: the host's topology and its virtual NeuronCores.
 * encctl topo set KEY VALUE...: change the simulated host (CAP_NET_ADMIN).
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "print.h"
#include "state.h"
#include "topo.h"

static void topo_usage(void)
{
	printf("Usage: encctl [-j [-p]] topo [show]\n"
	       "       encctl topo set [pod-type none|p2p|switch|invalid|N] [pod-node-id N]\n"
	       "                       [pod-sz N] [reservation-id N] [virtual-server-size N]\n"
	       "\n"
	       "show: the host's topology (the seed's tdrv facts) and every virtual\n"
	       "NeuronCore. set: changes the simulated device broker's host facts, all\n"
	       "at once; comms built before keep theirs. It needs CAP_NET_ADMIN.\n");
}

static int topo_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ENCD_A_TOPO_MAX + 1] = {};
	struct encctl_topo *topo = data;

	encctl_nl_parse(nlh, tb, ENCD_A_TOPO_MAX);
	topo->num_vcores = encctl_attr_u32(tb[ENCD_A_TOPO_NUM_VCORES], 0);
	topo->pod_type = encctl_attr_u32(tb[ENCD_A_TOPO_POD_TYPE], 0);
	topo->pod_node_id = encctl_attr_u32(tb[ENCD_A_TOPO_POD_NODE_ID], 0);
	topo->pod_sz = encctl_attr_u32(tb[ENCD_A_TOPO_POD_SZ], 0);
	topo->reservation_id = encctl_attr_u64(tb[ENCD_A_TOPO_RESERVATION_ID], 0);
	topo->virtual_server_size = encctl_attr_u32(tb[ENCD_A_TOPO_VIRTUAL_SERVER_SIZE], 0);
	return MNL_CB_OK;
}

int encctl_topo_read(struct encctl_nl *nl, struct encctl_topo *topo)
{
	struct nlmsghdr *req = encctl_nl_request(nl, ENCD_NL_CMD_TOPO_GET, 0);

	memset(topo, 0, sizeof(*topo));
	return encctl_nl_talk(nl, req, topo_cb, topo, "reading the topology", NULL);
}

static int vcore_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ENCD_A_VCORE_MAX + 1] = {};

	encctl_nl_parse(nlh, tb, ENCD_A_VCORE_MAX);
	print_open_object(NULL);
	print_uint(PRINT_ANY, "vnc", "%6llu", encctl_attr_u32(tb[ENCD_A_VCORE_VNC], 0));
	print_uint(PRINT_ANY, "nec_dev", " %7llu", encctl_attr_u32(tb[ENCD_A_VCORE_NEC_DEV], 0));
	print_uint(PRINT_ANY, "mla_idx", " %4llu", encctl_attr_u32(tb[ENCD_A_VCORE_MLA_IDX], 0));
	print_uint(PRINT_ANY, "host_device_id", " %11llu",
		   encctl_attr_u32(tb[ENCD_A_VCORE_HOST_DEVICE_ID], 0));
	print_uint(PRINT_ANY, "routing_id", " %7llu",
		   encctl_attr_u32(tb[ENCD_A_VCORE_ROUTING_ID], 0));
	print_uint(PRINT_ANY, "vtpb_idx", " %4llu\n",
		   encctl_attr_u32(tb[ENCD_A_VCORE_VTPB_IDX], 0));
	print_close();
	return MNL_CB_OK;
}

static int topo_show(struct encctl_nl *nl)
{
	struct encctl_topo topo;
	struct nlmsghdr *req;
	int err;

	if (encctl_topo_read(nl, &topo))
		return ENCCTL_EXIT_FAIL;

	print_open_object(NULL);
	print_string(PRINT_ANY, "pod_type", "pod %s", encctl_pod_type_name(topo.pod_type));
	print_uint(PRINT_ANY, "pod_node_id", " node %llu", topo.pod_node_id);
	print_uint(PRINT_ANY, "pod_sz", " size %llu", topo.pod_sz);
	print_uint(PRINT_ANY, "reservation_id", " reservation %llu", topo.reservation_id);
	print_uint(PRINT_ANY, "virtual_server_size", " virtual-server-size %llu\n",
		   topo.virtual_server_size);
	print_uint(PRINT_ANY, "num_vcores", "%llu virtual NeuronCores:\n", topo.num_vcores);
	print_text("   VNC NEC_DEV  MLA HOST_DEVICE ROUTING VTPB\n");
	print_open_array("vcores");
	req = encctl_nl_request(nl, ENCD_NL_CMD_VCORE_GET, NLM_F_DUMP);
	err = encctl_nl_talk(nl, req, vcore_cb, NULL, "reading the virtual cores", NULL);
	print_close();
	print_close();
	if (err)
		return ENCCTL_EXIT_FAIL;
	print_doc_end();
	return ENCCTL_EXIT_OK;
}

static const char *topo_attr_name(uint16_t type)
{
	switch (type) {
	case ENCD_A_TOPO_POD_TYPE:
		return "pod-type";
	case ENCD_A_TOPO_POD_NODE_ID:
		return "pod-node-id";
	case ENCD_A_TOPO_POD_SZ:
		return "pod-sz";
	case ENCD_A_TOPO_RESERVATION_ID:
		return "reservation-id";
	case ENCD_A_TOPO_VIRTUAL_SERVER_SIZE:
		return "virtual-server-size";
	}
	return NULL;
}

static int pod_type_arg(const char *value, uint32_t *out)
{
	uint32_t t;

	for (t = ENCD_POD_TYPE_NONE; t <= ENCD_POD_TYPE_INVALID; t++) {
		if (value && !strcmp(value, encctl_pod_type_name(t))) {
			*out = t;
			return 0;
		}
	}
	/* A number is passed on as it is: the kernel says what it allows. */
	return encctl_arg_u32("pod-type", value, UINT32_MAX, out);
}

static int topo_set(struct encctl_nl *nl, int argc, char **argv)
{
	struct nlmsghdr *req = encctl_nl_request(nl, ENCD_NL_CMD_TOPO_SET, 0);
	uint64_t v64;
	uint32_t v;
	uint16_t type;

	for (; argc > 0; argc -= 2, argv += 2) {
		type = 0;
		if (!strcmp(argv[0], "pod-type")) {
			if (pod_type_arg(argv[1], &v))
				return ENCCTL_EXIT_USAGE;
			mnl_attr_put_u32(req, ENCD_A_TOPO_POD_TYPE, v);
			continue;
		}
		if (!strcmp(argv[0], "reservation-id")) {
			if (encctl_arg_u64(argv[0], argv[1], &v64))
				return ENCCTL_EXIT_USAGE;
			mnl_attr_put_u64(req, ENCD_A_TOPO_RESERVATION_ID, v64);
			continue;
		}
		if (!strcmp(argv[0], "pod-node-id"))
			type = ENCD_A_TOPO_POD_NODE_ID;
		else if (!strcmp(argv[0], "pod-sz"))
			type = ENCD_A_TOPO_POD_SZ;
		else if (!strcmp(argv[0], "virtual-server-size"))
			type = ENCD_A_TOPO_VIRTUAL_SERVER_SIZE;
		else
			return encctl_bad_arg("topo", argv[0]);
		if (encctl_arg_u32(argv[0], argv[1], UINT32_MAX, &v))
			return ENCCTL_EXIT_USAGE;
		mnl_attr_put_u32(req, type, v);
	}
	if (encctl_nl_talk(nl, req, NULL, NULL, "topo set", topo_attr_name))
		return ENCCTL_EXIT_FAIL;
	return ENCCTL_EXIT_OK;
}

static int topo_run(int argc, char **argv)
{
	struct encctl_nl nl;
	int ret;

	if (argc > 0 && !encctl_matches(argv[0], "show") && strcmp(argv[0], "set"))
		return encctl_bad_arg("topo", argv[0]);
	if (argc > 0 && strcmp(argv[0], "set") && argc > 1)
		return encctl_bad_arg("topo", argv[1]);
	if (argc == 1 && !strcmp(argv[0], "set")) {
		fprintf(stderr, "encctl: topo set: say what to set; try 'encctl topo --help'\n");
		return ENCCTL_EXIT_USAGE;
	}

	if (encctl_nl_open(&nl))
		return ENCCTL_EXIT_FAIL;
	if (argc > 0 && !strcmp(argv[0], "set"))
		ret = topo_set(&nl, argc - 1, argv + 1);
	else
		ret = topo_show(&nl);
	encctl_nl_close(&nl);
	return ret;
}

const struct encctl_cmd encctl_cmd_topo = {
	.name = "topo",
	.summary = "the host's topology and virtual NeuronCores; set it (admin)",
	.run = topo_run,
	.usage = topo_usage,
};
