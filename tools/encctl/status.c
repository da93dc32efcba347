// SPDX-License-Identifier: GPL-2.0
/*
 * encctl status: one screen that says whether this host's worlds are
 * healthy: the host's topology (and a warning when the module lets worlds
 * form without a secret), then per core and context the world (size, rank,
 * pod, state, age, how long each phase took, what its host agent sent),
 * its comm nodes (which replica groups have comms, and where each stands)
 * and the last error in words.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "encctl.h"
#include "gcomm.h"
#include "print.h"
#include "topo.h"

static int status_help(int argc, char **argv)
{
	int ret = encctl_no_args("status help", argc, argv);

	if (ret)
		return ret;
	printf("Usage: encctl [-j [-p]] status\n"
	       "       encctl status help\n"
	       "\n"
	       "The host's topology, a warning when encd was loaded with\n"
	       "allow_insecure_worlds=1, and the networks worlds may use when encd's\n"
	       "networks parameter is set; then one line per global comm (NeuronCore device\n"
	       "and context): rank and world size, pod, state, age, holders and root,\n"
	       "followed by the world's phase times and the bytes its host agent sent, one\n"
	       "line per comm node (stream, replica groups, state, phase times) and the\n"
	       "last error, if any. Then the host agents whose ranks all left and that\n"
	       "still pass the news of departures on: their world, user, age, time to\n"
	       "their deadline and links.\n");
	return ENCCTL_EXIT_OK;
}

/* The module's settings that apply to every world. */
struct module_settings {
	int allow_insecure;	/* 0, 1, or 2 while the kernel did not say */
	char networks[1024];	/* the networks parameter, "" for any address */
	bool has_networks;	/* the kernel said (an older one does not) */
};

static int module_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ENCD_A_MODULE_MAX + 1] = {};
	struct module_settings *ms = data;
	const char *nets;

	encctl_nl_parse(nlh, tb, ENCD_A_MODULE_MAX);
	ms->allow_insecure = encctl_attr_u8(tb[ENCD_A_MODULE_ALLOW_INSECURE_WORLDS], 2);
	nets = encctl_attr_str(tb[ENCD_A_MODULE_NETWORKS]);
	if (nets) {
		snprintf(ms->networks, sizeof(ms->networks), "%s", nets);
		ms->has_networks = true;
	}
	return MNL_CB_OK;
}

/* The module's settings: 0, or -1 after saying why. */
static int read_module(struct encctl_nl *nl, struct module_settings *ms)
{
	struct nlmsghdr *req = encctl_nl_request(nl, ENCD_NL_CMD_MODULE_GET, 0);

	ms->allow_insecure = 2;
	if (encctl_nl_talk(nl, req, module_cb, ms, "reading the module's settings", NULL))
		return -1;
	if (ms->allow_insecure > 1)
		return encctl_err(-1, "reading the module's settings: the kernel did not say "
				  "whether worlds without a secret are allowed");
	return 0;
}

static void print_host(const struct encctl_topo *topo, const struct module_settings *ms,
		       unsigned int n_comms)
{
	print_open_object("host");
	print_uint(PRINT_ANY, "num_vcores", "encd: %llu virtual NeuronCores", topo->num_vcores);
	print_string(PRINT_ANY, "pod_type", ", pod %s", encctl_pod_type_name(topo->pod_type));
	print_uint(PRINT_ANY, "pod_node_id", " node %llu", topo->pod_node_id);
	print_uint(PRINT_ANY, "pod_sz", " of %llu", topo->pod_sz);
	print_uint(PRINT_ANY, "reservation_id", ", reservation %llu", topo->reservation_id);
	print_uint(PRINT_ANY, "virtual_server_size", ", virtual server size %llu\n",
		   topo->virtual_server_size);
	print_text("encd: ");
	encctl_topo_source_print(topo);
	print_close();
	print_bool(PRINT_JSON, "allow_insecure_worlds", NULL, ms->allow_insecure);
	if (ms->allow_insecure)
		print_text("encd: WARNING: allow_insecure_worlds=1: a world whose root is not "
			   "on loopback may form without a secret, unauthenticated\n");
	/* null from a module that does not have the parameter. */
	if (ms->has_networks)
		print_string(PRINT_JSON, "networks", NULL, ms->networks);
	else
		print_null("networks");
	if (ms->networks[0])
		print_text("encd: networks=%s: worlds use no other address (but loopback, "
			   "in a world whose root is on loopback)\n", ms->networks);
	if (!n_comms)
		print_text("no global comms\n");
	else
		print_text("%u global comm%s\n\n", n_comms, n_comms == 1 ? "" : "s");
}

/* One line: the node's place, its groups, its state, its phase times. */
static void print_node(const struct encctl_node *n)
{
	unsigned int id, i;
	bool first = true;

	print_open_object(NULL);
	print_uint(PRINT_ANY, "stream", "          stream %llu", n->stream);
	print_bool(PRINT_JSON, "global", NULL, n->global);
	print_text(n->global ? " world" : "      ");
	print_uint(PRINT_ANY, "rank", " rank %llu", n->rank);
	print_uint(PRINT_ANY, "rank_n", "/%llu", n->rank_n);
	/* Too many for the one line of text a node has; `comm show` prints them. */
	print_open_array("participants");
	for (i = 0; i < n->n_participants; i++)
		print_uint(PRINT_JSON, NULL, NULL, n->participants[i]);
	print_close();
	print_open_array("groups");
	print_text(" groups");
	for (id = 0; id < 32; id++) {
		if (!(n->groups & (1U << id)))
			continue;
		print_uint(PRINT_ANY, NULL, first ? " %llu" : ",%llu", id);
		first = false;
	}
	if (first)
		print_text(" -");
	print_close();
	print_string(PRINT_ANY, "state", "  %s", encctl_node_state_name(n->state));
	print_uint(PRINT_JSON, "refcnt", NULL, n->refcnt);
	encctl_phases_print(&n->phases);
	print_text("\n");
	encctl_error_print(&n->error, "            ");
	print_close();
}

static void print_comm(const struct encctl_gcomm *g)
{
	char rank[32], pod[32], age[32];
	unsigned int i;

	snprintf(rank, sizeof(rank), "%u/%u", g->g_device_id, g->g_device_cnt);
	snprintf(pod, sizeof(pod), "%s %u/%u", encctl_pod_type_name(g->pod_type),
		 g->pod_node_id, g->pod_sz);
	print_duration(encctl_age_ns(g->created_ns), age, sizeof(age));

	print_open_object(NULL);
	print_uint(PRINT_ANY, "nec_dev", "%4llu", g->nec_dev);
	print_uint(PRINT_ANY, "ctx", " %3llu", g->ctx);
	print_uint(PRINT_JSON, "g_device_id", NULL, g->g_device_id);
	print_uint(PRINT_JSON, "g_device_cnt", NULL, g->g_device_cnt);
	print_string(PRINT_FP, NULL, " %10s", rank);
	print_string(PRINT_JSON, "pod_type", NULL, encctl_pod_type_name(g->pod_type));
	print_uint(PRINT_JSON, "pod_node_id", NULL, g->pod_node_id);
	print_uint(PRINT_JSON, "pod_sz", NULL, g->pod_sz);
	print_string(PRINT_FP, NULL, "  %-12s", pod);
	print_uint(PRINT_ANY, "virtual_server_id", " %3llu", g->virtual_server_id);
	print_string(PRINT_ANY, "state", "  %-12s", encctl_gcomm_state_name(g->state));
	print_uint(PRINT_JSON, "created_ns", NULL, g->created_ns);
	print_string(PRINT_FP, NULL, " %8s", age);
	print_uint(PRINT_ANY, "holders", " %7llu", g->holders);
	encctl_owner_print(g, " %6s");
	print_string(PRINT_ANY, "root_comm_id", "  %s\n", g->root_comm_id[0] ? g->root_comm_id : "-");
	print_uint(PRINT_JSON, "serial", NULL, g->serial);
	print_bool(PRINT_JSON, "check_sigs", NULL, g->check_sigs);
	if (g->phases.n || g->has_host_tx || print_json()) {
		print_text("          world");
		encctl_phases_print(&g->phases);
		encctl_host_tx_print(g, "  host sent %llu bytes");
		print_text("\n");
	}
	encctl_error_print(&g->error, "          ");
	print_open_array("nodes");
	for (i = 0; i < g->n_nodes; i++)
		print_node(&g->nodes[i]);
	print_close();
	print_close();
}

/*
 * A host agent whose ranks all left and that still passes the news of
 * departures on: no comm shows it, yet it holds its world's links and
 * memory until its deadline.
 */
static int news_host_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ENCD_A_NEWS_HOST_MAX + 1] = {};
	unsigned int *n = data;
	char age[32], left[32];
	const char *root;
	uint32_t children;

	encctl_nl_parse(nlh, tb, ENCD_A_NEWS_HOST_MAX);
	if (!(*n)++)
		print_text("\nhost agents with no ranks, passing news of departures on:\n");
	root = encctl_attr_str(tb[ENCD_A_NEWS_HOST_ROOT]);
	children = encctl_attr_u32(tb[ENCD_A_NEWS_HOST_CHILDREN], 0);
	print_duration(encctl_attr_u64(tb[ENCD_A_NEWS_HOST_AGE], 0), age, sizeof(age));
	print_duration(encctl_attr_u64(tb[ENCD_A_NEWS_HOST_LEFT], 0), left, sizeof(left));
	print_open_object(NULL);
	print_uint(PRINT_ANY, "index", "  host %llu", encctl_attr_u32(tb[ENCD_A_NEWS_HOST_INDEX], 0));
	print_string(PRINT_ANY, "root", " of the world of root %s", root ? root : "-");
	print_uint(PRINT_ANY, "world_size", " (%llu ranks)",
		   encctl_attr_u32(tb[ENCD_A_NEWS_HOST_WORLD_SIZE], 0));
	print_uint(PRINT_ANY, "uid", ", uid %llu", encctl_attr_u32(tb[ENCD_A_NEWS_HOST_UID], 0));
	print_uint(PRINT_JSON, "age_ns", NULL, encctl_attr_u64(tb[ENCD_A_NEWS_HOST_AGE], 0));
	print_string(PRINT_FP, NULL, ": age %s", age);
	print_uint(PRINT_JSON, "left_ns", NULL, encctl_attr_u64(tb[ENCD_A_NEWS_HOST_LEFT], 0));
	print_string(PRINT_FP, NULL, ", ends in %s", left);
	print_uint(PRINT_ANY, "links", ", %llu links", encctl_attr_u32(tb[ENCD_A_NEWS_HOST_LINKS], 0));
	print_bool(PRINT_JSON, "parent", NULL, encctl_attr_u8(tb[ENCD_A_NEWS_HOST_PARENT], 0));
	print_string(PRINT_FP, NULL, "%s",
		     encctl_attr_u8(tb[ENCD_A_NEWS_HOST_PARENT], 0) ? " (its parent's up)" : "");
	print_uint(PRINT_ANY, "children", ", %llu", children);
	print_string(PRINT_FP, NULL, " %s", children == 1 ? "child" : "children");
	print_uint(PRINT_ANY, "staying", ", %llu ranks of its subtree staying\n",
		   encctl_attr_u32(tb[ENCD_A_NEWS_HOST_STAYING], 0));
	print_close();
	return MNL_CB_OK;
}

static int print_news_hosts(struct encctl_nl *nl)
{
	struct nlmsghdr *req = encctl_nl_request(nl, ENCD_NL_CMD_NEWS_HOST_GET, NLM_F_DUMP);
	unsigned int n = 0;
	int err;

	print_open_array("news_hosts");
	err = encctl_nl_talk(nl, req, news_host_cb, &n, "reading the hosts passing news on", NULL);
	print_close();
	return err;
}

/* cmd_select() runs it with no word left: status has no other arguments. */
static int status_show(int argc, char **argv)
{
	struct encctl_gcomms comms;
	struct encctl_topo topo;
	struct encctl_nl nl;
	struct module_settings ms = {};
	unsigned int i;
	int ret = ENCCTL_EXIT_FAIL;

	if (encctl_nl_open(&nl))
		return ENCCTL_EXIT_FAIL;
	if (encctl_topo_read(&nl, &topo) || read_module(&nl, &ms) ||
	    encctl_gcomms_read(&nl, -1, -1, &comms))
		goto out;

	print_open_object(NULL);
	print_host(&topo, &ms, comms.n);
	if (comms.n)
		print_text("CORE CTX RANK/WORLD  POD           VS  STATE              AGE HOLDERS  OWNER  ROOT\n");
	print_open_array("comms");
	for (i = 0; i < comms.n; i++)
		print_comm(&comms.comms[i]);
	print_close();
	/* After the comms, which are what most look for. */
	ret = print_news_hosts(&nl) ? ENCCTL_EXIT_FAIL : ENCCTL_EXIT_OK;
	print_close();
	print_doc_end();
	encctl_gcomms_free(&comms);
out:
	encctl_nl_close(&nl);
	return ret;
}

static const struct cmd cmds[] = {
	{ "help", status_help },
	{ NULL, NULL },
};

int do_status(int argc, char **argv)
{
	return cmd_select(cmds, "status", argc, argv, status_show);
}
