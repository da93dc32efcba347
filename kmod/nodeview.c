// SPDX-License-Identifier: GPL-2.0
/*
 * What netlink shows of a comm node: a snapshot taken under its host's
 * lock, for a dump (encd_nodeview_walk()) or an event (encd_node_notify()).
 */
#include <linux/slab.h>

#include "encd_private.h"

struct snapshot {
	struct encd_nl_node n;
	struct encd_nl_phase phases[ENCD_PHASE_N];
	struct encd_nl_counter counters[ENCD_COUNTERS_MAX];
};

static void snapshot(struct encd_node *node, struct snapshot *s)
{
	struct encd_rank *r = node->rank;
	struct encd_gcomm *g = r->g;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->n.nec_dev = g->nec_dev_id;
	s->n.ctx_id = g->ctx_id;
	s->n.stream_id = node->stream_id;
	s->n.gcomm_serial = g->serial;
	s->n.participants = node->key;
	s->n.rank = node->brank;
	s->n.rank_n = node->rank_n;
	s->n.refcnt = encd_node_users(node);
	s->n.state = READ_ONCE(node->state);
	s->n.global = node->global;
	s->n.groups = node->groups;
	s->n.phases = s->phases;
	if (node->global && r->rendezvous_ns) {
		s->phases[0].id = ENCD_PHASE_RENDEZVOUS;
		s->phases[0].start_ns = r->rendezvous_start;
		s->phases[0].duration_ns = r->rendezvous_ns;
		s->n.n_phases = 1;
	}
	for (i = ENCD_PHASE_VALIDATE; i < ENCD_PHASE_N; i++) {
		if (!node->phase_start[i])
			continue;
		s->phases[s->n.n_phases].id = i;
		s->phases[s->n.n_phases].start_ns = node->phase_start[i];
		s->phases[s->n.n_phases].duration_ns = node->phase_ns[i];
		s->n.n_phases++;
	}
	s->n.counters = s->counters;
	for (i = 0; i < node->stats.n && i < ENCD_COUNTERS_MAX; i++) {
		s->counters[i].type = encd_wire_type_uapi(node->stats.c[i].type);
		s->counters[i].size = node->stats.c[i].size;
		s->counters[i].tx = node->stats.c[i].tx;
		s->counters[i].rx = node->stats.c[i].rx;
	}
	s->n.n_counters = i;
}

/**
 * encd_node_notify() - multicasts a node event
 * @node: the node; the caller holds its host's lock
 * @cmd: ENCD_NL_CMD_*_NTF
 * @e: what failed, or NULL
 */
void encd_node_notify(struct encd_node *node, u8 cmd, const struct encd_nl_error *e)
{
	struct snapshot *s = kmalloc(sizeof(*s), GFP_KERNEL);

	lockdep_assert_held(&node->rank->host->lock);
	if (!s)
		return;
	snapshot(node, s);
	s->n.error = e;
	encd_nl_notify_node(cmd, node->rank->g->net, &s->n);
	kfree(s);
}

struct view_walk {
	int (*fn)(void *arg, const struct encd_nl_node *node);
	void *arg;
	struct snapshot s;
};

static int view_one(void *arg, struct encd_node *node)
{
	struct view_walk *w = arg;

	snapshot(node, &w->s);
	return w->fn(w->arg, &w->s.n);
}

/**
 * encd_nodeview_walk() - snapshots of a comm's nodes, for a netlink dump
 * @g: the comm
 * @pos: the node to start at; advanced past each node put
 * @fn: puts one node; stops the walk on error
 * @arg: for @fn
 *
 * Return: @fn's first error, -ENOMEM, or 0.
 */
int encd_nodeview_walk(struct encd_gcomm *g, unsigned long *pos,
		       int (*fn)(void *arg, const struct encd_nl_node *node), void *arg)
{
	struct view_walk *w;
	int err;

	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->fn = fn;
	w->arg = arg;
	err = encd_gcomm_rank_walk(g, pos, view_one, w);
	kfree(w);
	return err;
}
