// SPDX-License-Identifier: GPL-2.0
/*
 * encctl topo [show]: the host's topology and its virtual NeuronCores.
 * encctl topo set KEY VALUE...: change the simulated host (CAP_NET_ADMIN).
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "encctl.h"
#include "print.h"
#include "state.h"
#include "topo.h"

static int topo_help(int argc, char **argv)
{
	int ret = encctl_no_args("topo help", argc, argv);

	if (ret)
		return ret;
	printf("Usage: encctl [-j [-p]] topo [show]\n"
	       "       encctl topo set [pod-type none|p2p|switch|invalid|N] [pod-node-id N]\n"
	       "                       [pod-sz N] [reservation-id N] [virtual-server-size N]\n"
	       "       encctl topo help\n"
	       "\n"
	       "show: the host's topology (the facts libnrt reads from its device driver,\n"
	       "see Documentation/libnrt.rst) and every virtual NeuronCore. set: changes\n"
	       "the simulated device broker's host facts, all at once; comms built before\n"
	       "keep theirs. It needs CAP_NET_ADMIN.\n");
	return ENCCTL_EXIT_OK;
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

static int show(struct encctl_nl *nl)
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

static int topo_show(int argc, char **argv)
{
	struct encctl_nl nl;
	int ret = encctl_no_args("topo show", argc, argv);

	if (ret)
		return ret;
	if (encctl_nl_open(&nl))
		return ENCCTL_EXIT_FAIL;
	ret = show(&nl);
	encctl_nl_close(&nl);
	return ret;
}

/* The words of `topo set` and the attribute each sets, in the same order. */
static const char *const set_words[] = {
	"pod-type", "pod-node-id", "pod-sz", "reservation-id", "virtual-server-size", NULL,
};

static const uint16_t set_attrs[] = {
	ENCD_A_TOPO_POD_TYPE, ENCD_A_TOPO_POD_NODE_ID, ENCD_A_TOPO_POD_SZ,
	ENCD_A_TOPO_RESERVATION_ID, ENCD_A_TOPO_VIRTUAL_SERVER_SIZE,
};

/* The name the kernel's errors blame an attribute of TOPO_SET by: the word that set it. */
static const char *topo_attr_name(uint16_t type)
{
	size_t i;

	for (i = 0; i < sizeof(set_attrs) / sizeof(set_attrs[0]); i++)
		if (set_attrs[i] == type)
			return set_words[i];
	return NULL;
}

static int pod_type_arg(const char *value, uint64_t *out)
{
	const char *names[ENCD_POD_TYPE_INVALID + 2];
	uint32_t t;
	int i;

	for (t = ENCD_POD_TYPE_NONE; t <= ENCD_POD_TYPE_INVALID; t++)
		names[t] = encctl_pod_type_name(t);
	names[t] = NULL;
	i = value ? encctl_word_index(value, names) : -1;
	if (i >= 0) {
		*out = i;
		return 0;
	}
	if (value && !(value[0] >= '0' && value[0] <= '9')) {
		encctl_bad_word("topo set", "pod-type", value, names, "a number");
		return -1;
	}
	/* A number is passed on as it is: the kernel says what it allows. */
	return encctl_parse_u64("topo set", "pod-type", value, UINT32_MAX, out);
}

static int topo_set(int argc, char **argv)
{
	uint16_t types[argc / 2 + 1];
	uint64_t values[argc / 2 + 1];
	struct encctl_nl nl;
	struct nlmsghdr *req;
	int n = 0, i, w, ret;
	char list[256];

	if (!argc)
		return encctl_err(ENCCTL_EXIT_USAGE, "topo set: say what to set; try %s",
				  encctl_words(list, sizeof(list), set_words));
	/* All of the line first: a mistake anywhere in it sets nothing. */
	for (; argc > 0; argc -= 2, argv += 2, n++) {
		const char *value = argc > 1 ? argv[1] : NULL;

		if (argv[0][0] == '-' && argv[0][1])
			return encctl_bad_option("topo set", argv[0], NULL, set_words);
		w = encctl_word_index(argv[0], set_words);
		if (w < 0)
			return encctl_bad_word("topo set", "argument", argv[0], set_words, NULL);
		types[n] = set_attrs[w];
		if (types[n] == ENCD_A_TOPO_POD_TYPE)
			ret = pod_type_arg(value, &values[n]);
		else
			ret = encctl_parse_u64("topo set", argv[0], value,
					       types[n] == ENCD_A_TOPO_RESERVATION_ID ? UINT64_MAX :
										      UINT32_MAX,
					       &values[n]);
		if (ret)
			return ENCCTL_EXIT_USAGE;
	}

	if (encctl_nl_open(&nl))
		return ENCCTL_EXIT_FAIL;
	req = encctl_nl_request(&nl, ENCD_NL_CMD_TOPO_SET, 0);
	for (i = 0; i < n; i++) {
		if (types[i] == ENCD_A_TOPO_RESERVATION_ID)
			mnl_attr_put_u64(req, types[i], values[i]);
		else
			mnl_attr_put_u32(req, types[i], values[i]);
	}
	ret = encctl_nl_talk(&nl, req, NULL, NULL, "topo set", topo_attr_name) ?
		      ENCCTL_EXIT_FAIL : ENCCTL_EXIT_OK;
	encctl_nl_close(&nl);
	return ret;
}

static const struct cmd cmds[] = {
	{ "show", topo_show },
	{ "set", topo_set },
	{ "help", topo_help },
	{ NULL, NULL },
};

int do_topo(int argc, char **argv)
{
	return cmd_select(cmds, "topo", argc, argv, topo_show);
}
