// SPDX-License-Identifier: GPL-2.0
/*
 * encctl world check: a cluster preflight. Every rank joins as `world join`
 * would (its launcher's environment with --from-env, a program or none),
 * runs the world's barrier and then --barriers more (10 unless given), and
 * lets go. Rank 0 then reads, over netlink, how the world's hosts came to
 * its root (ENCD_NL_CMD_WORLD_HOST_GET) and prints one report: when the
 * world formed and its phases, the barriers, the hosts slowest to register
 * and the slowest control links by the kernel's own clocks, and, when the
 * world failed, the sentence, the hosts that came and the ranks that never
 * did. With -j the same as one JSON document (encctl_err_status() keeps it
 * on failure). The other ranks print nothing unless they fail, but under
 * -j one line each: {"ok": true, ..., "g_device_id": G}. The exit
 * status is 0 only when this rank passed every barrier: at rank 0, only
 * when every rank formed the world.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include <enc/enc.h>
#include <enc/bootstrap.h>

#include "encctl.h"
#include "nl.h"
#include "print.h"
#include "world.h"

/* The barriers a check runs after the world's first, unless told. */
#define CHECK_BARRIERS		10
/* How many hosts and links the text report lists, slowest first. */
#define CHECK_SLOWEST		5

/* One host of the world, as its root saw it come (nanoseconds after rank 0). */
struct check_host {
	uint32_t index, ranks, first_rank;
	char addr[64];
	uint64_t joined_ns, registered_ns, handshake_ns;
	uint32_t rtt_us;
	bool has_ranks, has_handshake, has_rtt;
};

struct check_report {
	struct check_host *hosts;
	uint32_t n, size;
	uint32_t world_size;
	uint32_t missing[ENCD_WORLD_HOST_MISSING_MAX];
	uint32_t n_missing, missing_n;
	bool nomem;
};

static int host_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ENCD_A_WORLD_HOST_MAX + 1] = {};
	struct check_report *rep = data;
	const struct nlattr *a;
	struct check_host *h;
	const char *addr;

	encctl_nl_parse(nlh, tb, ENCD_A_WORLD_HOST_MAX);
	if (rep->n == rep->size) {
		uint32_t size = rep->size ? 2 * rep->size : 16;
		struct check_host *more = realloc(rep->hosts, size * sizeof(*more));

		if (!more) {
			rep->nomem = true;
			return MNL_CB_ERROR;
		}
		rep->hosts = more;
		rep->size = size;
	}
	h = &rep->hosts[rep->n++];
	memset(h, 0, sizeof(*h));
	h->index = encctl_attr_u32(tb[ENCD_A_WORLD_HOST_INDEX], 0);
	addr = encctl_attr_str(tb[ENCD_A_WORLD_HOST_ADDR]);
	snprintf(h->addr, sizeof(h->addr), "%s", addr ? addr : "?");
	h->ranks = encctl_attr_u32(tb[ENCD_A_WORLD_HOST_RANKS], 0);
	h->has_ranks = tb[ENCD_A_WORLD_HOST_FIRST_RANK];
	h->first_rank = encctl_attr_u32(tb[ENCD_A_WORLD_HOST_FIRST_RANK], 0);
	h->joined_ns = encctl_attr_u64(tb[ENCD_A_WORLD_HOST_JOINED], 0);
	h->registered_ns = encctl_attr_u64(tb[ENCD_A_WORLD_HOST_REGISTERED], 0);
	h->has_handshake = tb[ENCD_A_WORLD_HOST_HANDSHAKE];
	h->handshake_ns = encctl_attr_u64(tb[ENCD_A_WORLD_HOST_HANDSHAKE], 0);
	h->has_rtt = tb[ENCD_A_WORLD_HOST_RTT];
	h->rtt_us = encctl_attr_u32(tb[ENCD_A_WORLD_HOST_RTT], 0);
	if (!h->index) {
		rep->world_size = encctl_attr_u32(tb[ENCD_A_WORLD_HOST_WORLD_SIZE], 0);
		rep->missing_n = encctl_attr_u32(tb[ENCD_A_WORLD_HOST_MISSING_N], 0);
		mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
			if (mnl_attr_get_type(a) != ENCD_A_WORLD_HOST_MISSING ||
			    rep->n_missing == ENCD_WORLD_HOST_MISSING_MAX)
				continue;
			rep->missing[rep->n_missing++] = encctl_attr_u32(a, 0);
		}
	}
	return MNL_CB_OK;
}

/*
 * The hosts of the world rooted at (@vnc, @ctx), which this process holds
 * as rank 0: 0, or -1 after saying why (the report goes without them).
 */
static int read_hosts(uint32_t vnc, uint32_t ctx, struct check_report *rep)
{
	struct encd_glb_comm_header hdr;
	struct encctl_nl nl;
	struct nlmsghdr *req;
	int err;

	if (enc_get_global_comm_header(vnc, ctx, &hdr) != NRT_SUCCESS) {
		encctl_warn("world check: no hosts to report: %s", enc_last_error());
		return -1;
	}
	if (encctl_nl_open(&nl))
		return -1;
	req = encctl_nl_request(&nl, ENCD_NL_CMD_WORLD_HOST_GET, NLM_F_DUMP);
	mnl_attr_put_u32(req, ENCD_A_WORLD_HOST_NEC_DEV, hdr.nec_dev_id);
	mnl_attr_put_u32(req, ENCD_A_WORLD_HOST_CTX, ctx);
	err = encctl_nl_talk(&nl, req, host_cb, rep, "reading the world's hosts", NULL);
	encctl_nl_close(&nl);
	if (rep->nomem)
		encctl_warn("world check: out of memory for the world's hosts");
	return err || rep->nomem ? -1 : 0;
}

static int by_registered(const void *a, const void *b)
{
	const struct check_host *x = *(struct check_host *const *)a;
	const struct check_host *y = *(struct check_host *const *)b;

	return x->registered_ns < y->registered_ns ? 1 : x->registered_ns > y->registered_ns ?
										 -1 : 0;
}

static int by_handshake(const void *a, const void *b)
{
	const struct check_host *x = *(struct check_host *const *)a;
	const struct check_host *y = *(struct check_host *const *)b;

	return x->handshake_ns < y->handshake_ns ? 1 : x->handshake_ns > y->handshake_ns ? -1 : 0;
}

/* "host 2 10.0.0.3:40111 ranks 8-11": who a line is about. */
static void host_name(const struct check_host *h, char *buf, size_t size)
{
	if (!h->ranks)
		snprintf(buf, size, "host %u %s, no rank", h->index, h->addr);
	else if (h->ranks == 1)
		snprintf(buf, size, "host %u %s, rank %u", h->index, h->addr, h->first_rank);
	else
		snprintf(buf, size, "host %u %s, %u ranks from %u", h->index, h->addr, h->ranks,
			 h->first_rank);
}

static void print_hosts_text(const struct check_report *rep)
{
	struct check_host **order = calloc(rep->n, sizeof(*order));
	char who[128], t1[32], t2[32];
	uint32_t i, n = 0;

	if (!order)
		return;
	for (i = 0; i < rep->n; i++)
		if (rep->hosts[i].has_ranks)
			order[n++] = &rep->hosts[i];
	qsort(order, n, sizeof(*order), by_registered);
	if (n)
		printf("hosts slowest to register (of %u that came):\n", rep->n);
	for (i = 0; i < n && i < CHECK_SLOWEST; i++) {
		host_name(order[i], who, sizeof(who));
		printf("  %s: registered at +%s", who,
		       print_duration(order[i]->registered_ns, t1, sizeof(t1)));
		if (order[i]->index)
			printf(", joined at +%s", print_duration(order[i]->joined_ns, t2, sizeof(t2)));
		printf("\n");
	}
	n = 0;
	for (i = 0; i < rep->n; i++)
		if (rep->hosts[i].has_handshake)
			order[n++] = &rep->hosts[i];
	qsort(order, n, sizeof(*order), by_handshake);
	if (n)
		printf("slowest control links to the root (handshake, TCP round trip):\n");
	for (i = 0; i < n && i < CHECK_SLOWEST; i++) {
		host_name(order[i], who, sizeof(who));
		printf("  %s: %s", who, print_duration(order[i]->handshake_ns, t1, sizeof(t1)));
		if (order[i]->has_rtt)
			printf(", rtt %s", print_duration(order[i]->rtt_us * 1000ULL, t2, sizeof(t2)));
		else
			printf(", since closed");
		printf("\n");
	}
	free(order);
}

static void print_hosts_json(const struct check_report *rep)
{
	uint32_t i;

	print_open_array("hosts");
	for (i = 0; i < rep->n; i++) {
		const struct check_host *h = &rep->hosts[i];

		print_open_object(NULL);
		print_uint(PRINT_JSON, "index", NULL, h->index);
		print_string(PRINT_JSON, "addr", NULL, h->addr);
		print_uint(PRINT_JSON, "ranks", NULL, h->ranks);
		if (h->has_ranks)
			print_uint(PRINT_JSON, "first_rank", NULL, h->first_rank);
		else
			print_null("first_rank");
		print_uint(PRINT_JSON, "joined_us", NULL, h->joined_ns / 1000);
		if (h->has_ranks)
			print_uint(PRINT_JSON, "registered_us", NULL, h->registered_ns / 1000);
		else
			print_null("registered_us");
		if (h->has_handshake)
			print_uint(PRINT_JSON, "handshake_us", NULL, h->handshake_ns / 1000);
		else
			print_null("handshake_us");
		if (h->has_rtt)
			print_uint(PRINT_JSON, "rtt_us", NULL, h->rtt_us);
		else
			print_null("rtt_us");
		print_close();
	}
	print_close();
}

/* The ranks that never registered: all of them under -j, the first in text. */
static void print_missing(const struct check_report *rep)
{
	uint32_t i;

	print_uint(PRINT_JSON, "missing_n", NULL, rep->missing_n);
	print_open_array("missing");
	for (i = 0; i < rep->n_missing; i++)
		print_uint(PRINT_JSON, NULL, NULL, rep->missing[i]);
	print_close();
	if (!rep->missing_n || print_json())
		return;
	printf("%u of %u ranks never registered:", rep->missing_n, rep->world_size);
	for (i = 0; i < rep->n_missing; i++)
		printf(" %u", rep->missing[i]);
	printf("%s\n", rep->missing_n > rep->n_missing ? " ..." : "");
}

static void print_phases(const struct join_opts *o, const struct join_result *r)
{
	static const char *const names[ENCD_PHASE_N] = {
		[ENCD_PHASE_RENDEZVOUS] = "rendezvous",
		[ENCD_PHASE_VALIDATE] = "validate",
		[ENCD_PHASE_BROADCAST] = "broadcast",
		[ENCD_PHASE_COMM_INIT] = "comm_init",
		[ENCD_PHASE_LOCAL_BARRIER] = "local_barrier",
	};
	char t[32];
	int i;

	print_uint(PRINT_JSON, "setup_us", NULL, r->t_setup);
	print_open_object("phases");
	for (i = 0; i < ENCD_PHASE_N; i++)
		print_uint(PRINT_JSON, names[i], NULL, r->info.phase_ns[i] / 1000);
	print_close();
	print_uint(PRINT_JSON, "barriers", NULL, o->barriers);
	print_uint(PRINT_JSON, "barriers_passed", NULL, r->barriers_passed);
	print_uint(PRINT_JSON, "barrier_median_us", NULL, r->barrier_median_us);
	if (print_json() || r->st != NRT_SUCCESS)
		return;
	printf("world check: %u ranks formed in %s (", r->info.rank_n,
	       print_duration(r->t_setup * 1000, t, sizeof(t)));
	for (i = 0; i < ENCD_PHASE_N; i++)
		printf("%s%s %s", i ? ", " : "", names[i],
		       print_duration(r->info.phase_ns[i], t, sizeof(t)));
	printf("); %u barriers, median %s\n", o->barriers,
	       print_duration(r->barrier_median_us * 1000, t, sizeof(t)));
}

static void print_mismatch(const struct join_result *r)
{
	const struct encd_mismatch *m = &r->node.mismatch;

	if (!r->have_node || !m->valid)
		return;
	print_open_object("mismatch");
	print_int(PRINT_JSON, "group_id", NULL, (int32_t)m->group_id);
	print_uint(PRINT_JSON, "child_rank", NULL, m->child_rank);
	print_uint(PRINT_JSON, "child_g_device_id", NULL, m->child_g_device_id);
	print_close();
	if (!print_json())
		printf("rank 0's program differs from global device %u's (group %d)\n",
		       m->child_g_device_id, (int32_t)m->group_id);
}

static int world_check_report(const struct join_opts *o, struct join_result *r)
{
	struct check_report rep = {};
	bool hosts;

	/* A join that got as far as setting up has a global comm to ask about. */
	hosts = r->t_setup && !read_hosts(o->vnc, o->ctx, &rep);
	print_open_object(NULL);
	if (r->st == NRT_SUCCESS) {
		print_bool(PRINT_JSON, "ok", NULL, true);
		print_null("error");
		print_string(PRINT_JSON, "status", NULL, enc_status_name(r->st));
		print_null("reason");
	}
	print_uint(PRINT_JSON, "world_size", NULL, o->world_size);
	print_uint(PRINT_JSON, "hosts_n", NULL, rep.n);
	print_phases(o, r);
	if (hosts) {
		print_hosts_json(&rep);
		print_missing(&rep);
	}
	print_mismatch(r);
	if (hosts && !print_json())
		print_hosts_text(&rep);
	free(rep.hosts);
	if (r->st != NRT_SUCCESS)
		return encctl_err_status(ENCCTL_EXIT_FAIL, enc_status_name(r->st),
					 enc_reason_name(r->reason), ENCCTL_ERR_KEEP_DOC,
					 "world check: the world of %u ranks failed: %s",
					 o->world_size, r->error);
	print_doc_end();
	return ENCCTL_EXIT_OK;
}

/* Another rank that passed: silent, but for one line under -j. */
static int rank_passed(const struct join_opts *o)
{
	if (!print_json())
		return ENCCTL_EXIT_OK;
	print_open_object(NULL);
	print_bool(PRINT_JSON, "ok", NULL, true);
	print_null("error");
	print_string(PRINT_JSON, "status", NULL, enc_status_name(NRT_SUCCESS));
	print_null("reason");
	print_uint(PRINT_JSON, "g_device_id", NULL, o->g_device_id);
	print_doc_end();
	return ENCCTL_EXIT_OK;
}

int encctl_world_check(int argc, char **argv)
{
	struct join_opts o = {};
	struct join_result r = {};
	int ret;

	ret = encctl_world_parse_rank("world check", argc, argv, &o);
	if (ret)
		return ret;
	if (o.dry_run)
		return encctl_world_print_dry_run(&o);
	o.barrier = true;
	if (!o.barriers)
		o.barriers = CHECK_BARRIERS;
	encctl_world_run(&o, &r);
	if (!o.g_device_id)
		ret = world_check_report(&o, &r);
	else if (r.st != NRT_SUCCESS)
		ret = encctl_err_status(ENCCTL_EXIT_FAIL, enc_status_name(r.st),
					enc_reason_name(r.reason), 0, "world check: rank %u: %s",
					o.g_device_id, r.error);
	else
		ret = rank_passed(&o);
	fflush(stdout);
	enc_destroy_gcomm_locks();
	return ret;
}
