// SPDX-License-Identifier: GPL-2.0
/*
 * encctl topo [show]: the host's topology and its virtual NeuronCores.
 * encctl topo set KEY VALUE...: change the module parameters' host facts.
 * encctl topo sync: put the Neuron driver's facts in force (both need
 * CAP_NET_ADMIN).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include "args.h"
#include "encctl.h"
#include "neuron.h"
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
	       "       encctl [-j [-p]] topo sync [--sysfs DIR] [--dev DIR] [--wait SECONDS]\n"
	       "       encctl topo sync --params\n"
	       "       encctl topo help\n"
	       "\n"
	       "show: the host's topology (the facts libnrt reads from its device driver,\n"
	       "see Documentation/libnrt.rst), where they come from, and every virtual\n"
	       "NeuronCore. set: changes the module parameters' host facts, all at once.\n"
	       "sync: reads the Neuron driver (the class directory --sysfs, default\n"
	       NEURON_SYSFS_CLASS_DIR ", and the pod ioctls of the device nodes in\n"
	       "--dev, default /dev) and puts its facts in force, saying where each came\n"
	       "from; while its pod election runs, --wait syncs again when it ends, for\n"
	       "at most SECONDS. --params puts the module parameters back in force. Comms\n"
	       "built before keep their facts. set and sync need CAP_NET_ADMIN;\n"
	       "Documentation/assumptions.rst says what encd makes of each driver fact.\n");
	return ENCCTL_EXIT_OK;
}

static void device_add(struct encctl_topo *topo, const struct nlattr *nest)
{
	const struct nlattr *tb[ENCD_A_NEURON_DEVICE_MAX + 1] = {};
	struct encctl_topo_device *d;

	if (topo->n_dev >= ENCD_NEURON_MAX_DEVICES)
		return;
	encctl_nl_parse_nested(nest, tb, ENCD_A_NEURON_DEVICE_MAX);
	d = &topo->dev[topo->n_dev++];
	d->index = encctl_attr_u32(tb[ENCD_A_NEURON_DEVICE_INDEX], 0);
	d->core_count = encctl_attr_u32(tb[ENCD_A_NEURON_DEVICE_CORE_COUNT], 0);
	d->routing_id = encctl_attr_u32(tb[ENCD_A_NEURON_DEVICE_ROUTING_ID], 0);
}

static int topo_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ENCD_A_TOPO_MAX + 1] = {};
	struct encctl_topo *topo = data;
	const struct nlattr *attr;

	encctl_nl_parse(nlh, tb, ENCD_A_TOPO_MAX);
	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(attr) == ENCD_A_TOPO_DEVICE)
			device_add(topo, attr);
	topo->source = encctl_attr_u32(tb[ENCD_A_TOPO_SOURCE], ENCD_TOPO_SOURCE_PARAMS);
	topo->synced_at = encctl_attr_u64(tb[ENCD_A_TOPO_SYNCED_AT], 0);
	topo->election = encctl_attr_u8(tb[ENCD_A_TOPO_POD_ELECTION], 0);
	topo->neuron_node_id = tb[ENCD_A_TOPO_NEURON_NODE_ID] ?
		(int32_t)mnl_attr_get_u32(tb[ENCD_A_TOPO_NEURON_NODE_ID]) : -1;
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

const char *encctl_topo_source_name(uint32_t source)
{
	return source == ENCD_TOPO_SOURCE_NEURON ? "neuron" :
	       source == ENCD_TOPO_SOURCE_PARAMS ? "params" : "unknown";
}

void encctl_topo_source_print(const struct encctl_topo *topo)
{
	char when[64] = "";
	time_t at = topo->synced_at;
	struct tm tm;

	if (topo->source == ENCD_TOPO_SOURCE_NEURON)
		print_string(PRINT_ANY, "source", "topology from the Neuron driver", "neuron");
	else
		print_string(PRINT_ANY, "source", "topology from the module parameters", "params");
	if (at && gmtime_r(&at, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (at) {
		print_uint(PRINT_JSON, "synced_at", NULL, topo->synced_at);
		print_text(topo->source == ENCD_TOPO_SOURCE_NEURON ? " (synced %s, %llds ago)" :
			   " (the driver's, synced %s, %llds ago, is not in force)",
			   when, (long long)(time(NULL) - at));
	} else {
		print_null("synced_at");
		if (topo->source == ENCD_TOPO_SOURCE_PARAMS)
			print_text(" (never synced from a Neuron driver)");
	}
	print_bool(PRINT_JSON, "pod_election", NULL, topo->election);
	if (topo->election)
		print_text("; the Neuron driver is electing the pod: no global comm until a sync "
			   "after it");
	print_text("\n");
}

/* JSON: every device; text: one line, "neuron0..neuron15 (16), 2 cores each, routing ids ...". */
static void devices_print(const struct encctl_topo *topo)
{
	unsigned int i;

	print_open_array("devices");
	for (i = 0; i < topo->n_dev; i++) {
		print_open_object(NULL);
		print_uint(PRINT_JSON, "index", NULL, topo->dev[i].index);
		print_uint(PRINT_JSON, "core_count", NULL, topo->dev[i].core_count);
		print_uint(PRINT_JSON, "routing_id", NULL, topo->dev[i].routing_id);
		print_close();
	}
	print_close();
	if (!topo->n_dev)
		return;
	print_text("Neuron devices: neuron%u..neuron%u (%u), %u cores each, routing ids",
		   topo->dev[0].index, topo->dev[topo->n_dev - 1].index, topo->n_dev,
		   topo->dev[0].core_count);
	for (i = 0; i < topo->n_dev; i++)
		print_text(" %u", topo->dev[i].routing_id);
	print_text("\n");
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
	encctl_topo_source_print(&topo);
	if (topo.synced_at)
		print_int(PRINT_JSON, "neuron_node_id", NULL, topo.neuron_node_id);
	else
		print_null("neuron_node_id");
	devices_print(&topo);
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

enum { SYNC_SYSFS, SYNC_DEV, SYNC_WAIT, SYNC_PARAMS };

const struct encctl_opt encctl_topo_sync_opts[] = {
	{ "--sysfs", true, SYNC_SYSFS },
	{ "--dev", true, SYNC_DEV },
	{ "--wait", true, SYNC_WAIT },
	{ "--params", false, SYNC_PARAMS },
	{ NULL, false, 0 },
};

/* The name the kernel's errors blame an attribute of TOPO_SYNC by. */
static const char *sync_attr_name(uint16_t type)
{
	switch (type) {
	case ENCD_A_TOPO_DEVICE:
		return "a device";
	case ENCD_A_TOPO_NEURON_NODE_ID:
		return "the node id";
	case ENCD_A_TOPO_POD_TYPE:
		return "the pod type";
	case ENCD_A_TOPO_POD_SZ:
		return "the pod size";
	default:
		return NULL;
	}
}

/* Hands @nr (NULL: the parameters again) to the module. 0, or -1 after saying why. */
static int sync_send(struct encctl_nl *nl, const struct encctl_neuron *nr)
{
	struct nlmsghdr *req = encctl_nl_request(nl, ENCD_NL_CMD_TOPO_SYNC, 0);
	struct nlattr *nest;
	unsigned int i;

	if (!nr) {
		mnl_attr_put_u32(req, ENCD_A_TOPO_SOURCE, ENCD_TOPO_SOURCE_PARAMS);
		return encctl_nl_talk(nl, req, NULL, NULL, "topo sync", sync_attr_name);
	}
	mnl_attr_put_u32(req, ENCD_A_TOPO_SOURCE, ENCD_TOPO_SOURCE_NEURON);
	mnl_attr_put_u32(req, ENCD_A_TOPO_POD_TYPE, nr->pod_type);
	mnl_attr_put_u32(req, ENCD_A_TOPO_POD_SZ, nr->pod_sz);
	mnl_attr_put_u32(req, ENCD_A_TOPO_NEURON_NODE_ID, (uint32_t)nr->node_id);
	mnl_attr_put_u8(req, ENCD_A_TOPO_POD_ELECTION, nr->election);
	if (nr->has_reservation)
		mnl_attr_put_u64(req, ENCD_A_TOPO_RESERVATION_ID, nr->reservation_id);
	for (i = 0; i < nr->n; i++) {
		nest = mnl_attr_nest_start(req, ENCD_A_TOPO_DEVICE);
		mnl_attr_put_u32(req, ENCD_A_NEURON_DEVICE_INDEX, nr->dev[i].index);
		mnl_attr_put_u32(req, ENCD_A_NEURON_DEVICE_CORE_COUNT, nr->dev[i].core_count);
		mnl_attr_put_u32(req, ENCD_A_NEURON_DEVICE_ROUTING_ID, nr->dev[i].routing_id);
		mnl_attr_nest_end(req, nest);
	}
	return encctl_nl_talk(nl, req, NULL, NULL, "topo sync", sync_attr_name);
}

/*
 * What a sync put in force, and where each fact came from: the driver's
 * facts @nr as read, the pod as the module made of them (@topo: the
 * module decides what a node id of -1 means).
 */
static void sync_print(const struct encctl_neuron *nr, const struct encctl_topo *topo)
{
	unsigned int i, cores = 0;

	for (i = 0; i < nr->n; i++)
		cores += nr->dev[i].core_count;
	print_open_object(NULL);
	print_string(PRINT_JSON, "source", NULL, "neuron");
	print_text("synced from the Neuron driver: %u device%s, %u cores\n", nr->n,
		   nr->n == 1 ? "" : "s", cores);
	print_open_array("devices");
	for (i = 0; i < nr->n; i++) {
		print_open_object(NULL);
		print_uint(PRINT_ANY, "index", "  neuron%llu:", nr->dev[i].index);
		print_uint(PRINT_ANY, "core_count", " %llu cores", nr->dev[i].core_count);
		print_uint(PRINT_ANY, "routing_id", ", routing id %llu\n", nr->dev[i].routing_id);
		print_close();
	}
	print_close();
	print_bool(PRINT_JSON, "pod_election", NULL, nr->election);
	if (nr->election) {
		print_text("  pod: the election is running: no global comm until it ends\n");
	} else {
		print_string(PRINT_ANY, "pod_type", "  pod: %s",
			     encctl_pod_type_name(topo->pod_type));
		print_uint(PRINT_ANY, "pod_sz", ", %llu nodes", nr->pod_sz);
		print_int(PRINT_ANY, "node_id", ", node %lld\n", nr->node_id);
	}
	if (nr->has_reservation)
		print_uint(PRINT_ANY, "reservation_id", "  reservation id %llu\n",
			   nr->reservation_id);
	else
		print_null("reservation_id");
	print_open_object("from");
	print_string(PRINT_ANY, "cores", "  cores from %s\n", nr->cores_from);
	print_string(PRINT_ANY, "routing_id", "  routing ids from %s\n", nr->rid_from);
	print_string(PRINT_ANY, "pod", "  pod from %s\n", nr->pod_from);
	print_string(PRINT_ANY, "reservation_id", "  reservation id from %s\n",
		     nr->reservation_from);
	print_close();
	print_close();
	print_doc_end();
}

static int topo_sync(int argc, char **argv)
{
	struct encctl_optparse p = {
		.where = "topo sync", .opts = encctl_topo_sync_opts, .argc = argc, .argv = argv,
	};
	const char *sysfs = NEURON_SYSFS_CLASS_DIR, *dev = "/dev", *val;
	struct encctl_neuron nr;
	struct encctl_topo topo;
	bool params = false, other = false;
	struct encctl_nl nl;
	uint32_t wait_s = 0;
	time_t deadline;
	int id, ret;

	while ((id = encctl_opt_next(&p, &val)) != ENCCTL_OPT_END) {
		switch (id) {
		case ENCCTL_OPT_BAD:
			return ENCCTL_EXIT_USAGE;
		case ENCCTL_OPT_WORD:
			return encctl_err(ENCCTL_EXIT_USAGE,
					  "topo sync: unexpected '%s'; it takes only options", val);
		case SYNC_SYSFS:
			sysfs = val;
			other = true;
			break;
		case SYNC_DEV:
			dev = val;
			other = true;
			break;
		case SYNC_WAIT:
			if (encctl_parse_u32("topo sync", "--wait", val, 86400, &wait_s))
				return ENCCTL_EXIT_USAGE;
			other = true;
			break;
		case SYNC_PARAMS:
			params = true;
			break;
		}
	}
	if (params && other)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "topo sync: --params reads no driver: it takes no other option");
	if (!params && encctl_neuron_read(sysfs, dev, &nr))
		return ENCCTL_EXIT_FAIL;
	if (encctl_nl_open(&nl))
		return ENCCTL_EXIT_FAIL;
	if (params) {
		ret = sync_send(&nl, NULL) ? ENCCTL_EXIT_FAIL : ENCCTL_EXIT_OK;
		if (!ret) {
			print_open_object(NULL);
			print_string(PRINT_ANY, "source", "topology from the module parameters\n",
				     "params");
			print_close();
			print_doc_end();
		}
		goto out;
	}
	/* An election: its facts are not known yet, and no comm is built until they are. */
	deadline = time(NULL) + wait_s;
	while (nr.election && time(NULL) < deadline) {
		if (sync_send(&nl, &nr)) {
			ret = ENCCTL_EXIT_FAIL;
			goto out;
		}
		sleep(1);
		if (encctl_neuron_read(sysfs, dev, &nr)) {
			ret = ENCCTL_EXIT_FAIL;
			goto out;
		}
	}
	if (sync_send(&nl, &nr)) {
		ret = ENCCTL_EXIT_FAIL;
		goto out;
	}
	if (nr.election && wait_s) {
		ret = encctl_err(ENCCTL_EXIT_FAIL, "topo sync: the pod election did not end within "
				 "%u s; synced as electing: no global comm is built until a sync "
				 "after it", wait_s);
		goto out;
	}
	if (encctl_topo_read(&nl, &topo)) {
		ret = ENCCTL_EXIT_FAIL;
		goto out;
	}
	sync_print(&nr, &topo);
	ret = ENCCTL_EXIT_OK;
out:
	encctl_nl_close(&nl);
	return ret;
}

static const struct cmd cmds[] = {
	{ "show", topo_show },
	{ "set", topo_set },
	{ "sync", topo_sync },
	{ "help", topo_help },
	{ NULL, NULL },
};

int do_topo(int argc, char **argv)
{
	return cmd_select(cmds, "topo", argc, argv, topo_show);
}
