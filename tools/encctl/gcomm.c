// SPDX-License-Identifier: GPL-2.0
/*
 * Global comms and comm nodes: reading them (a GCOMM_GET dump, then a
 * NODE_GET dump, each read again if the kernel says it was interrupted) and
 * printing them whole. A node of a big world comes in several NODE_GET
 * messages, ENCD_PARTICIPANTS_PER_MSG participants each: they are put back
 * together here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>

#include "encctl.h"
#include "gcomm.h"
#include "print.h"

/* A dump interrupted this often in a row is read as it stands, with a warning. */
#define READ_TRIES	5

uint64_t encctl_age_ns(uint64_t boottime_ns)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	return now > boottime_ns ? now - boottime_ns : 0;
}

const char *encctl_gcomm_attr_name(uint16_t type)
{
	switch (type) {
	case ENCD_A_GCOMM_NEC_DEV:
		return "dev";
	case ENCD_A_GCOMM_CTX:
		return "ctx";
	}
	return NULL;
}

void encctl_gcomm_parse(const struct nlmsghdr *nlh, struct encctl_gcomm *g)
{
	const struct nlattr *tb[ENCD_A_GCOMM_MAX + 1] = {};
	const struct nlattr *attr;
	const char *root;

	memset(g, 0, sizeof(*g));
	encctl_nl_parse(nlh, tb, ENCD_A_GCOMM_MAX);
	g->nec_dev = encctl_attr_u32(tb[ENCD_A_GCOMM_NEC_DEV], 0);
	g->ctx = encctl_attr_u32(tb[ENCD_A_GCOMM_CTX], 0);
	g->serial = encctl_attr_u64(tb[ENCD_A_GCOMM_SERIAL], 0);
	g->g_device_id = encctl_attr_u32(tb[ENCD_A_GCOMM_G_DEVICE_ID], 0);
	g->g_device_cnt = encctl_attr_u32(tb[ENCD_A_GCOMM_G_DEVICE_CNT], 0);
	g->vtpb_idx = encctl_attr_u32(tb[ENCD_A_GCOMM_VTPB_IDX], 0);
	g->mla_idx = encctl_attr_s32(tb[ENCD_A_GCOMM_MLA_IDX], 0);
	g->host_device_id = encctl_attr_s32(tb[ENCD_A_GCOMM_HOST_DEVICE_ID], 0);
	g->routing_id = encctl_attr_s32(tb[ENCD_A_GCOMM_ROUTING_ID], 0);
	g->virtual_server_id = encctl_attr_u32(tb[ENCD_A_GCOMM_VIRTUAL_SERVER_ID], 0);
	g->pod_type = encctl_attr_u32(tb[ENCD_A_GCOMM_POD_TYPE], 0);
	g->pod_node_id = encctl_attr_u32(tb[ENCD_A_GCOMM_POD_NODE_ID], 0);
	g->pod_sz = encctl_attr_u32(tb[ENCD_A_GCOMM_POD_SZ], 0);
	g->reservation_id = encctl_attr_u64(tb[ENCD_A_GCOMM_RESERVATION_ID], 0);
	root = encctl_attr_str(tb[ENCD_A_GCOMM_ROOT_COMM_ID]);
	snprintf(g->root_comm_id, sizeof(g->root_comm_id), "%s", root ? root : "");
	g->check_sigs = tb[ENCD_A_GCOMM_CHECK_SIGS];
	g->holders = encctl_attr_u32(tb[ENCD_A_GCOMM_HOLDERS], 0);
	g->state = encctl_attr_u32(tb[ENCD_A_GCOMM_STATE], 0);
	g->created_ns = encctl_attr_u64(tb[ENCD_A_GCOMM_CREATED], 0);
	g->netns_ino = encctl_attr_u32(tb[ENCD_A_GCOMM_NETNS_INO], 0);
	g->has_host_tx = tb[ENCD_A_GCOMM_HOST_TX_BYTES] &&
			 !mnl_attr_validate(tb[ENCD_A_GCOMM_HOST_TX_BYTES], MNL_TYPE_U64);
	g->host_tx_bytes = encctl_attr_u64(tb[ENCD_A_GCOMM_HOST_TX_BYTES], 0);
	g->has_owner = tb[ENCD_A_GCOMM_OWNER_UID] &&
		       !mnl_attr_validate(tb[ENCD_A_GCOMM_OWNER_UID], MNL_TYPE_U32);
	g->owner_uid = encctl_attr_u32(tb[ENCD_A_GCOMM_OWNER_UID], 0);
	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(attr) == ENCD_A_GCOMM_PHASE)
			encctl_phase_add(&g->phases, attr);
	if (tb[ENCD_A_GCOMM_ERROR])
		encctl_error_parse(&g->error, tb[ENCD_A_GCOMM_ERROR]);
}

/* The participants of a NODE_GET message, and how many. */
static const uint32_t *node_participants(const struct nlattr *attr, uint32_t *count)
{
	*count = 0;
	if (!attr || mnl_attr_get_payload_len(attr) % sizeof(uint32_t))
		return NULL;
	*count = mnl_attr_get_payload_len(attr) / sizeof(uint32_t);
	return mnl_attr_get_payload(attr);
}

int encctl_node_parse(const struct nlmsghdr *nlh, struct encctl_node *n)
{
	const struct nlattr *tb[ENCD_A_NODE_MAX + 1] = {};
	const struct nlattr *attr;
	const uint32_t *part;
	uint32_t count;

	memset(n, 0, sizeof(*n));
	encctl_nl_parse(nlh, tb, ENCD_A_NODE_MAX);
	n->nec_dev = encctl_attr_u32(tb[ENCD_A_NODE_NEC_DEV], 0);
	n->ctx = encctl_attr_u32(tb[ENCD_A_NODE_CTX], 0);
	n->stream = encctl_attr_u32(tb[ENCD_A_NODE_STREAM], 0);
	n->gcomm_serial = encctl_attr_u64(tb[ENCD_A_NODE_GCOMM_SERIAL], 0);
	n->rank = encctl_attr_u32(tb[ENCD_A_NODE_RANK], 0);
	n->rank_n = encctl_attr_u32(tb[ENCD_A_NODE_RANK_N], 0);
	n->refcnt = encctl_attr_u32(tb[ENCD_A_NODE_REFCNT], 0);
	n->state = encctl_attr_u32(tb[ENCD_A_NODE_STATE], 0);
	n->groups = encctl_attr_u32(tb[ENCD_A_NODE_GROUPS], 0);
	n->global = tb[ENCD_A_NODE_GLOBAL];
	part = node_participants(tb[ENCD_A_NODE_PARTICIPANTS], &count);
	if (count) {
		/* Room for all of them: the next messages bring the rest. */
		n->participants = malloc((n->rank_n > count ? n->rank_n : count) * sizeof(*part));
		if (!n->participants)
			return -1;
		memcpy(n->participants, part, count * sizeof(*part));
		n->n_participants = count;
	}
	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == ENCD_A_NODE_PHASE)
			encctl_phase_add(&n->phases, attr);
		else if (mnl_attr_get_type(attr) == ENCD_A_NODE_COUNTER)
			encctl_counter_add(&n->counters, attr);
	}
	if (tb[ENCD_A_NODE_ERROR])
		encctl_error_parse(&n->error, tb[ENCD_A_NODE_ERROR]);
	return 0;
}

void encctl_node_free(struct encctl_node *n)
{
	free(n->participants);
	n->participants = NULL;
}

void encctl_gcomms_free(struct encctl_gcomms *comms)
{
	unsigned int i, j;

	for (i = 0; i < comms->n; i++) {
		for (j = 0; j < comms->comms[i].n_nodes; j++)
			encctl_node_free(&comms->comms[i].nodes[j]);
		free(comms->comms[i].nodes);
	}
	free(comms->comms);
	comms->comms = NULL;
	comms->n = 0;
}

struct read_ctx {
	struct encctl_gcomms *out;
	struct encctl_node *last;	/* the node the next message may go on with */
	bool failed;
	bool torn;			/* a node came in pieces that do not fit */
};

static int gcomm_cb(const struct nlmsghdr *nlh, void *data)
{
	struct read_ctx *ctx = data;
	struct encctl_gcomms *out = ctx->out;
	struct encctl_gcomm *comms;

	comms = realloc(out->comms, (out->n + 1) * sizeof(*comms));
	if (!comms) {
		ctx->failed = true;
		return MNL_CB_ERROR;
	}
	out->comms = comms;
	encctl_gcomm_parse(nlh, &comms[out->n++]);
	return MNL_CB_OK;
}

/*
 * A NODE_GET message whose participants do not start at 0 goes on with the
 * node of the message before it, which must be the same node and have
 * exactly the participants before these. Returns false when it does not.
 */
static bool node_continue(struct encctl_node *n, const struct nlattr **tb)
{
	const uint32_t *part;
	uint32_t count;

	part = node_participants(tb[ENCD_A_NODE_PARTICIPANTS], &count);
	if (!n || !part ||
	    encctl_attr_u32(tb[ENCD_A_NODE_PARTICIPANTS_OFFSET], 0) != n->n_participants ||
	    encctl_attr_u32(tb[ENCD_A_NODE_NEC_DEV], UINT32_MAX) != n->nec_dev ||
	    encctl_attr_u32(tb[ENCD_A_NODE_CTX], UINT32_MAX) != n->ctx ||
	    encctl_attr_u32(tb[ENCD_A_NODE_STREAM], UINT32_MAX) != n->stream ||
	    encctl_attr_u64(tb[ENCD_A_NODE_GCOMM_SERIAL], 0) != n->gcomm_serial ||
	    encctl_attr_u32(tb[ENCD_A_NODE_RANK_N], 0) != n->rank_n ||
	    count > n->rank_n - n->n_participants)
		return false;
	memcpy(n->participants + n->n_participants, part, count * sizeof(*part));
	n->n_participants += count;
	return true;
}

static int node_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ENCD_A_NODE_MAX + 1] = {};
	struct read_ctx *ctx = data;
	struct encctl_gcomms *out = ctx->out;
	struct encctl_node node, *nodes;
	struct encctl_gcomm *g = NULL;
	unsigned int i;

	encctl_nl_parse(nlh, tb, ENCD_A_NODE_MAX);
	if (encctl_attr_u32(tb[ENCD_A_NODE_PARTICIPANTS_OFFSET], 0)) {
		/* The rest of a node of a comm not read is not read either. */
		if (ctx->last && !node_continue(ctx->last, tb))
			ctx->torn = true;
		return MNL_CB_OK;
	}
	ctx->last = NULL;
	if (encctl_node_parse(nlh, &node)) {
		ctx->failed = true;
		return MNL_CB_ERROR;
	}
	for (i = 0; i < out->n && !g; i++)
		if (out->comms[i].serial == node.gcomm_serial)
			g = &out->comms[i];
	/* A node of a comm that came after the comm dump: next time. */
	if (!g) {
		encctl_node_free(&node);
		return MNL_CB_OK;
	}
	nodes = realloc(g->nodes, (g->n_nodes + 1) * sizeof(*nodes));
	if (!nodes) {
		encctl_node_free(&node);
		ctx->failed = true;
		return MNL_CB_ERROR;
	}
	g->nodes = nodes;
	nodes[g->n_nodes] = node;
	ctx->last = &nodes[g->n_nodes++];
	return MNL_CB_OK;
}

static void put_filter(struct nlmsghdr *req, uint16_t dev_attr, uint16_t ctx_attr, int nec_dev,
		       int ctx)
{
	if (nec_dev >= 0)
		mnl_attr_put_u32(req, dev_attr, nec_dev);
	if (ctx >= 0)
		mnl_attr_put_u32(req, ctx_attr, ctx);
}

/* The world's node first, then by stream and key: the kernel's order is a hash's. */
static int node_cmp(const void *a, const void *b)
{
	const struct encctl_node *x = a, *y = b;
	uint32_t i;

	if (x->global != y->global)
		return x->global ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->n_participants != y->n_participants)
		return x->n_participants > y->n_participants ? -1 : 1;
	for (i = 0; i < x->n_participants; i++)
		if (x->participants[i] != y->participants[i])
			return x->participants[i] < y->participants[i] ? -1 : 1;
	return 0;
}

/* One try: 0, 1 when a dump was interrupted, -1 on failure. */
static int read_once(struct encctl_nl *nl, int nec_dev, int ctx, struct encctl_gcomms *out)
{
	struct read_ctx rctx = { .out = out };
	struct nlmsghdr *req;
	unsigned int i, j;
	bool intr;

	req = encctl_nl_request(nl, ENCD_NL_CMD_GCOMM_GET, NLM_F_DUMP);
	put_filter(req, ENCD_A_GCOMM_NEC_DEV, ENCD_A_GCOMM_CTX, nec_dev, ctx);
	if (encctl_nl_talk(nl, req, gcomm_cb, &rctx, "reading the global comms",
			   encctl_gcomm_attr_name))
		return -1;
	intr = nl->dump_intr;

	req = encctl_nl_request(nl, ENCD_NL_CMD_NODE_GET, NLM_F_DUMP);
	put_filter(req, ENCD_A_NODE_NEC_DEV, ENCD_A_NODE_CTX, nec_dev, ctx);
	if (encctl_nl_talk(nl, req, node_cb, &rctx, "reading the comm nodes",
			   encctl_gcomm_attr_name))
		return -1;
	if (rctx.failed)
		return encctl_err(-1, "reading the global comms: out of memory");
	for (i = 0; i < out->n; i++) {
		for (j = 0; j < out->comms[i].n_nodes; j++)
			rctx.torn |= out->comms[i].nodes[j].n_participants !=
				     out->comms[i].nodes[j].rank_n;
		qsort(out->comms[i].nodes, out->comms[i].n_nodes, sizeof(struct encctl_node),
		      node_cmp);
	}
	return intr || nl->dump_intr || rctx.torn;
}

int encctl_gcomms_read(struct encctl_nl *nl, int nec_dev, int ctx, struct encctl_gcomms *out)
{
	int tries, ret;

	for (tries = 0; tries < READ_TRIES; tries++) {
		memset(out, 0, sizeof(*out));
		ret = read_once(nl, nec_dev, ctx, out);
		if (ret <= 0)
			break;
		if (tries + 1 < READ_TRIES)
			encctl_gcomms_free(out);
	}
	if (ret < 0) {
		encctl_gcomms_free(out);
		return -1;
	}
	if (ret > 0)
		encctl_warn("comms kept changing while being read");
	return 0;
}

static void print_groups(uint32_t groups)
{
	unsigned int id;
	bool first = true;

	print_open_array("groups");
	print_text(" groups");
	for (id = 0; id < 32; id++) {
		if (!(groups & (1U << id)))
			continue;
		print_uint(PRINT_ANY, NULL, first ? " %llu" : ",%llu", id);
		first = false;
	}
	if (first)
		print_text(" -");
	print_close();
}

void encctl_node_print(const char *key, const struct encctl_node *n, const char *indent)
{
	unsigned int i;

	print_open_object(key);
	print_text("%snode", indent);
	print_uint(PRINT_JSON, "nec_dev", NULL, n->nec_dev);
	print_uint(PRINT_JSON, "ctx", NULL, n->ctx);
	print_uint(PRINT_ANY, "stream", " stream %llu", n->stream);
	print_uint(PRINT_JSON, "gcomm_serial", NULL, n->gcomm_serial);
	print_bool(PRINT_JSON, "global", NULL, n->global);
	if (n->global)
		print_text(" world");
	print_uint(PRINT_ANY, "rank", " rank %llu", n->rank);
	print_uint(PRINT_ANY, "rank_n", "/%llu", n->rank_n);
	print_string(PRINT_ANY, "state", " %s", encctl_node_state_name(n->state));
	print_uint(PRINT_ANY, "refcnt", " refcnt %llu", n->refcnt);
	print_groups(n->groups);
	print_text("\n%s    participants", indent);
	print_open_array("participants");
	for (i = 0; i < n->n_participants; i++)
		print_uint(PRINT_ANY, NULL, " %llu", n->participants[i]);
	print_close();
	print_text("\n%s    phases", indent);
	encctl_phases_print(&n->phases);
	print_text("\n%s    messages", indent);
	encctl_counters_print(&n->counters);
	print_text("\n");
	encctl_error_print(&n->error, indent);
	print_close();
}

void encctl_host_tx_print(const struct encctl_gcomm *g, const char *fmt)
{
	if (g->has_host_tx)
		print_uint(PRINT_ANY, "host_tx_bytes", fmt, g->host_tx_bytes);
	else
		print_null("host_tx_bytes");
}

void encctl_owner_print(const struct encctl_gcomm *g, const char *fmt)
{
	char uid[16] = "-";

	if (g->has_owner) {
		print_uint(PRINT_JSON, "owner_uid", NULL, g->owner_uid);
		snprintf(uid, sizeof(uid), "%u", g->owner_uid);
	} else {
		print_null("owner_uid");
	}
	print_string(PRINT_FP, NULL, fmt, uid);
}

void encctl_gcomm_print(const char *key, const struct encctl_gcomm *g, bool nodes)
{
	char buf[32];
	unsigned int i;

	print_open_object(key);
	print_uint(PRINT_ANY, "nec_dev", "comm dev %llu", g->nec_dev);
	print_uint(PRINT_ANY, "ctx", " ctx %llu", g->ctx);
	print_uint(PRINT_ANY, "serial", " serial %llu", g->serial);
	print_uint(PRINT_ANY, "g_device_id", ": rank %llu", g->g_device_id);
	print_uint(PRINT_ANY, "g_device_cnt", " of %llu", g->g_device_cnt);
	print_string(PRINT_ANY, "state", ", %s\n", encctl_gcomm_state_name(g->state));
	print_uint(PRINT_ANY, "vtpb_idx", "    vtpb %llu", g->vtpb_idx);
	print_int(PRINT_ANY, "mla_idx", " mla %lld", g->mla_idx);
	print_int(PRINT_ANY, "host_device_id", " host-device %lld", g->host_device_id);
	print_int(PRINT_ANY, "routing_id", " routing %lld", g->routing_id);
	print_uint(PRINT_ANY, "virtual_server_id", " virtual-server %llu\n", g->virtual_server_id);
	print_string(PRINT_ANY, "pod_type", "    pod %s", encctl_pod_type_name(g->pod_type));
	print_uint(PRINT_ANY, "pod_node_id", " node %llu", g->pod_node_id);
	print_uint(PRINT_ANY, "pod_sz", " size %llu", g->pod_sz);
	print_uint(PRINT_ANY, "reservation_id", " reservation %llu\n", g->reservation_id);
	print_string(PRINT_ANY, "root_comm_id", "    root %s",
		     g->root_comm_id[0] ? g->root_comm_id : "-");
	print_bool(PRINT_ANY, "check_sigs", " check-sigs %s", g->check_sigs);
	print_uint(PRINT_ANY, "holders", " holders %llu", g->holders);
	encctl_owner_print(g, " owner %s");
	print_uint(PRINT_JSON, "created_ns", NULL, g->created_ns);
	print_string(PRINT_FP, NULL, " age %s",
		     print_duration(encctl_age_ns(g->created_ns), buf, sizeof(buf)));
	print_uint(PRINT_ANY, "netns_ino", " netns %llu", g->netns_ino);
	encctl_host_tx_print(g, " host-tx-bytes %llu");
	print_text("\n");
	if (g->phases.n || print_json()) {
		print_text("    world");
		encctl_phases_print(&g->phases);
		print_text("\n");
	}
	encctl_error_print(&g->error, "    ");
	if (nodes) {
		print_open_array("nodes");
		for (i = 0; i < g->n_nodes; i++)
			encctl_node_print(NULL, &g->nodes[i], "    ");
		print_close();
	}
	print_close();
}
