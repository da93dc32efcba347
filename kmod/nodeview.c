// SPDX-License-Identifier: GPL-2.0
/*
 * What is shown of a comm node: one snapshot taken under its host's lock
 * (encd_node_snapshot()), for a netlink dump (encd_nodeview_walk(), which
 * walks a comm's rank's nodes), a netlink event (encd_node_notify()) and
 * the NODE_INFO ioctl (world.c).
 */
#include <linux/slab.h>

#include "encd_private.h"

/* The uapi's name (enum encd_msg_type) of a message type, or 0. */
static u32 wire_type_uapi(u8 type)
{
	switch (type) {
	case ENCD_WIRE_SIG:
		return ENCD_MSG_SIGNATURE;
	case ENCD_WIRE_UID:
		return ENCD_MSG_UNIQUE_ID;
	case ENCD_WIRE_RING:
		return ENCD_MSG_RING;
	case ENCD_WIRE_BARRIER:
		return ENCD_MSG_BARRIER;
	default:
		return 0;
	}
}

/**
 * encd_node_snapshot() - what is shown of a comm node
 * @node: the node; the caller holds its host's lock
 * @s: out: the snapshot; @s->n points into it
 */
void encd_node_snapshot(struct encd_node *node, struct encd_node_snapshot *s)
{
	struct encd_rank *r = node->rank;
	struct encd_gcomm *g = r->g;
	unsigned int i;

	lockdep_assert_held(&r->host->lock);
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
		s->counters[i].type = wire_type_uapi(node->stats.c[i].type);
		s->counters[i].size = node->stats.c[i].size;
		s->counters[i].tx = node->stats.c[i].tx;
		s->counters[i].rx = node->stats.c[i].rx;
	}
	s->n.n_counters = i;
	s->local_n = node->local_n;
	s->hits = node->hits;
}

/**
 * encd_node_notify() - multicasts a node event
 * @node: the node; the caller holds its host's lock
 * @cmd: ENCD_NL_CMD_*_NTF
 * @e: what failed, or NULL
 */
void encd_node_notify(struct encd_node *node, u8 cmd, const struct encd_nl_error *e)
{
	struct encd_node_snapshot *s = kmalloc(sizeof(*s), GFP_KERNEL);

	lockdep_assert_held(&node->rank->host->lock);
	if (!s)
		return;
	encd_node_snapshot(node, s);
	s->n.error = e;
	encd_nl_notify_node(cmd, node->rank->g->net, &s->n);
	kfree(s);
}

/*
 * Calls @fn with each comm node of @g's rank from the @pos'th (counted
 * from 0), under the rank's host's lock, advancing @pos past each; @fn's
 * first error stops the walk and is returned.
 */
static int rank_walk(struct encd_gcomm *g, unsigned long *pos,
		     int (*fn)(void *arg, struct encd_node *node), void *arg)
{
	struct encd_rank *r = encd_gcomm_rank(g);
	struct encd_node *node;
	unsigned long idx = 0;
	unsigned int s, bkt;
	int err = 0;

	if (!r)
		return 0;
	if (!r->host)
		goto out;
	mutex_lock(&r->host->lock);
	if (r->global_node && idx++ >= *pos) {
		err = fn(arg, r->global_node);
		if (err)
			goto unlock;
		(*pos)++;
	}
	for (s = 0; s < ENCD_MAX_STREAM_N; s++) {
		hash_for_each(r->pools[s].table, bkt, node, hnode) {
			if (idx++ < *pos)
				continue;
			err = fn(arg, node);
			if (err)
				goto unlock;
			(*pos)++;
		}
	}
unlock:
	mutex_unlock(&r->host->lock);
out:
	encd_rank_put(r);
	return err;
}

struct view_walk {
	int (*fn)(void *arg, const struct encd_nl_node *node);
	void *arg;
	struct encd_node_snapshot s;
};

static int view_one(void *arg, struct encd_node *node)
{
	struct view_walk *w = arg;

	encd_node_snapshot(node, &w->s);
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
	err = rank_walk(g, pos, view_one, w);
	kfree(w);
	return err;
}
