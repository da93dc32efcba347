// SPDX-License-Identifier: GPL-2.0
/*
 * The departure rules of kmod/rules.h, the header the module decides with,
 * checked in every order of the events a host sees.
 *
 * One host holds a waiting rank W of a comm (the world's, or a replica
 * group's); one or two other ranks of the comm depart, each either on W's
 * host or on one of two other hosts. Each configuration fixes what every
 * departing rank did before it left: whether it had formed the comm, how
 * many of its barriers it completed, whether it had sent its part of
 * forming or its round of the barrier after those. What it sent W's host
 * travels on its host's data link (one per host, first in first out),
 * with the news of its departure behind it when the link exists; the news
 * also comes through the root, in any order with the link. W starts its
 * comm forming, then its barriers 1 and 2, at any point; a message that
 * comes before W waits for it is held, as the module holds early ones.
 *
 * W's host decides as the module does: the news of each departure is
 * settled per encd_news_settles(), and W's comm forming or its barrier is
 * failed when encd_departure_blocks() says a departure blocks it, when
 * news comes, when the comm starts forming and when a barrier starts.
 *
 * Checked in every state reached:
 *   - a failure names a rank that did not complete what was failed: it had
 *     not formed the comm that failed forming, it completed fewer barriers
 *     than the number of the one that failed;
 *   - a comm forming fails only once all the rank it names sent W's host
 *     has come: a part of forming still on its way could have formed it;
 *   - nothing waits forever: once no event is left, W's comm has formed
 *     or failed, and no barrier of it is still waiting.
 *
 * Pure user space: it needs no VM, but runs there too. KTAP output.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
#include "../kmod/rules.h"

#define MAX_DEP		2	/* departing ranks */
#define MAX_HOST	2	/* hosts of departing ranks other than W's */
#define BARRIERS	2	/* the barriers W wants once its comm formed */
#define MAX_MSGS	(MAX_DEP * (3 + BARRIERS))

enum kind { M_FORM, M_ROUND, M_NEWS };

struct msg {
	enum kind kind;
	int dep;
	u32 barrier;		/* M_ROUND: its number */
};

/* What a departing rank did before it left. */
struct history {
	bool local;		/* on W's host */
	int host;		/* else its host */
	bool formed;		/* it had formed the comm */
	u32 completed;		/* barriers of it completed */
	bool sent_form;		/* its part of forming was sent */
	bool sent_next;		/* its round of barrier completed + 1 was sent */
};

struct config {
	bool global;		/* the world's comm, which every rank that departs formed */
	int n_dep;
	struct history d[MAX_DEP];
	bool traffic[MAX_HOST];	/* another rank of the host sent to W's before */
	/* what follows from it */
	struct msg link[MAX_HOST][MAX_MSGS];
	int link_len[MAX_HOST];
	int last_of[MAX_DEP];	/* link index of its last message, or -1 */
	bool listed[MAX_DEP];	/* its news names W's host: the link exists */
};

enum node { N_IDLE, N_FORMING, N_READY, N_FAILED };

struct state {
	int link_pos[MAX_HOST];	/* messages delivered */
	unsigned int root_done;	/* bit d: the root's news of it came */
	unsigned int known;	/* bit d: W's host heard of its departure */
	unsigned int settled;	/* bit d */
	enum node node;
	unsigned int got_form;	/* bit d: its part of forming came */
	unsigned int got_round[MAX_DEP];	/* bit b - 1: its round of barrier b came */
	u32 epoch;		/* barriers W started */
	bool active, bar_failed;
};

static const struct config *cfg;
static const char *why;
static char why_buf[512];
static unsigned long n_configs, n_states, n_transitions;

/* Visited states of one configuration: open addressing, cleared per run. */
#define SEEN_BITS	16
static uint64_t seen_key[1 << SEEN_BITS];
static unsigned int seen_gen[1 << SEEN_BITS], gen;

static uint64_t key_of(const struct state *s)
{
	uint64_t k = 0;
	int i;

	for (i = 0; i < MAX_HOST; i++)
		k = k << 4 | s->link_pos[i];
	k = k << 2 | s->root_done;
	k = k << 2 | s->known;
	k = k << 2 | s->settled;
	k = k << 2 | s->node;
	k = k << 2 | s->got_form;
	for (i = 0; i < MAX_DEP; i++)
		k = k << BARRIERS | s->got_round[i];
	k = k << 2 | s->epoch;
	return k << 2 | s->active << 1 | s->bar_failed;
}

/* Whether @s was seen; marks it seen. */
static bool seen(const struct state *s)
{
	uint64_t k = key_of(s);
	unsigned int i = (unsigned int)((k * 0x9e3779b97f4a7c15ULL) >> (64 - SEEN_BITS));

	while (seen_gen[i] == gen) {
		if (seen_key[i] == k)
			return true;
		i = (i + 1) & ((1 << SEEN_BITS) - 1);
	}
	seen_gen[i] = gen;
	seen_key[i] = k;
	n_states++;
	return false;
}

static bool violated(const char *what, int d, u32 b)
{
	const struct history *h = &cfg->d[d];

	snprintf(why_buf, sizeof(why_buf),
		 "%s; %s comm, rank %d of %d departing %s: formed %d, completed %u, sent its forming %d and next round %d, news names W's host %d; W at barrier %u",
		 what, cfg->global ? "world" : "group", d, cfg->n_dep,
		 h->local ? "locally" : "remotely", h->formed, h->completed, h->sent_form,
		 h->sent_next, cfg->listed[d], b);
	why = why_buf;
	return false;
}

static bool wrong(const char *what)
{
	why = what;
	return false;
}

/* What W's host knows of departure @d, as the module's view of it. */
static void view(const struct state *s, int d, struct encd_departed_view *v)
{
	v->settled = s->settled & 1u << d;
	v->formed = cfg->global || cfg->d[d].formed;
	/*
	 * Of a comm it had not formed, the module has only the world's count,
	 * which says nothing of this one: here, as many as there are.
	 */
	v->barriers = v->formed ? cfg->d[d].completed : BARRIERS;
}

/* The first departure heard of that blocks @what, or -1: the module's question. */
static int blocker(const struct state *s, enum encd_wait what, u32 barrier)
{
	struct encd_departed_view v;
	int d;

	for (d = 0; d < cfg->n_dep; d++) {
		if (!(s->known & 1u << d))
			continue;
		view(s, d, &v);
		if (encd_departure_blocks(&v, what, barrier))
			return d;
	}
	return -1;
}

/* Whether all @d sent W's host has come. */
static bool all_came(const struct state *s, int d)
{
	const struct history *h = &cfg->d[d];

	return h->local || cfg->last_of[d] < s->link_pos[h->host];
}

static bool fail_forming(struct state *s, int d)
{
	s->node = N_FAILED;
	if (cfg->global || cfg->d[d].formed)
		return violated("a comm forming failed, naming a rank that had formed it", d, 0);
	if (!all_came(s, d))
		return violated("a comm forming failed while a message of the rank it names was on its way", d, 0);
	return true;
}

static bool fail_barrier(struct state *s, int d, u32 b)
{
	s->active = false;
	s->bar_failed = true;
	if ((cfg->global || cfg->d[d].formed) && b <= cfg->d[d].completed)
		return violated("a barrier failed, naming a rank that had completed it", d, b);
	return true;
}

/* The module's checks of what W waits for (depart_node()). */
static bool recheck(struct state *s)
{
	int d;

	if (s->node == N_FORMING) {
		d = blocker(s, ENCD_WAIT_FORMING, 0);
		if (d >= 0 && !fail_forming(s, d))
			return false;
	}
	if (s->active) {
		d = blocker(s, ENCD_WAIT_BARRIER, s->epoch);
		if (d >= 0 && !fail_barrier(s, d, s->epoch))
			return false;
	}
	return true;
}

static bool all_formed(const struct state *s)
{
	return s->got_form == (1u << cfg->n_dep) - 1;
}

static bool all_rounds(const struct state *s, u32 b)
{
	int d;

	for (d = 0; d < cfg->n_dep; d++)
		if (!(s->got_round[d] & 1u << (b - 1)))
			return false;
	return true;
}

static bool news(struct state *s, int d, enum encd_news_via via)
{
	s->known |= 1u << d;
	if (encd_news_settles(via, cfg->listed[d]))
		s->settled |= 1u << d;
	return recheck(s);
}

static bool deliver(struct state *s, const struct msg *m)
{
	switch (m->kind) {
	case M_FORM:
		s->got_form |= 1u << m->dep;
		if (s->node == N_FORMING && all_formed(s))
			s->node = N_READY;
		return true;
	case M_ROUND:
		s->got_round[m->dep] |= 1u << (m->barrier - 1);
		if (s->active && s->epoch == m->barrier && all_rounds(s, s->epoch))
			s->active = false;
		return true;
	case M_NEWS:
		return news(s, m->dep, ENCD_NEWS_DATA);
	}
	return true;
}

/* The comm starts forming: early messages first, then the check (encd_engine_node_start()). */
static bool start_node(struct state *s)
{
	s->node = all_formed(s) ? N_READY : N_FORMING;
	return recheck(s);
}

/* A barrier about to start is checked first, with its number (barrier_enter()). */
static bool start_barrier(struct state *s)
{
	int d = blocker(s, ENCD_WAIT_BARRIER, s->epoch + 1);

	if (d >= 0)
		return fail_barrier(s, d, s->epoch + 1);
	s->epoch++;
	s->active = !all_rounds(s, s->epoch);
	return recheck(s);
}

static bool explore(const struct state *s)
{
	bool moved = false;
	struct state t;
	int h, d;

	if (seen(s))
		return true;
	for (h = 0; h < MAX_HOST; h++) {
		if (s->link_pos[h] == cfg->link_len[h])
			continue;
		t = *s;
		t.link_pos[h]++;
		moved = true;
		n_transitions++;
		if (!deliver(&t, &cfg->link[h][s->link_pos[h]]) || !explore(&t))
			return false;
	}
	for (d = 0; d < cfg->n_dep; d++) {
		if (s->root_done & 1u << d)
			continue;
		t = *s;
		t.root_done |= 1u << d;
		moved = true;
		n_transitions++;
		if (!news(&t, d, cfg->d[d].local ? ENCD_NEWS_LOCAL : ENCD_NEWS_ROOT) ||
		    !explore(&t))
			return false;
	}
	if (s->node == N_IDLE) {
		t = *s;
		moved = true;
		n_transitions++;
		if (!start_node(&t) || !explore(&t))
			return false;
	}
	if (s->node == N_READY && !s->active && !s->bar_failed && s->epoch < BARRIERS) {
		t = *s;
		moved = true;
		n_transitions++;
		if (!start_barrier(&t) || !explore(&t))
			return false;
	}
	if (moved)
		return true;
	if (s->node == N_FORMING)
		return violated("nothing is left to come, and the comm still waits to form", 0, 0);
	if (s->active)
		return violated("nothing is left to come, and a barrier still waits", 0, s->epoch);
	return true;
}

static void push(struct config *c, int host, enum kind kind, int d, u32 b)
{
	struct msg *m = &c->link[host][c->link_len[host]++];

	m->kind = kind;
	m->dep = d;
	m->barrier = b;
}

/*
 * Lays out what each departing rank sent, in the order they left: a local
 * one hands its messages over at once (held at W's host from the start),
 * a remote one's go on its host's link, its news behind them when the
 * link exists.
 */
static void lay_out(struct config *c, struct state *s0)
{
	bool link[MAX_HOST];
	int d, h;
	u32 b, upto;

	memset(s0, 0, sizeof(*s0));
	memset(c->link_len, 0, sizeof(c->link_len));
	for (h = 0; h < MAX_HOST; h++)
		link[h] = c->traffic[h];
	for (d = 0; d < c->n_dep; d++) {
		const struct history *hd = &c->d[d];

		upto = hd->completed + (hd->sent_next ? 1 : 0);
		c->last_of[d] = -1;
		if (hd->local) {
			s0->got_form |= hd->sent_form ? 1u << d : 0;
			s0->got_round[d] = (1u << upto) - 1;
			c->listed[d] = false;
			continue;
		}
		h = hd->host;
		if (hd->sent_form)
			push(c, h, M_FORM, d, 0);
		for (b = 1; b <= upto; b++)
			push(c, h, M_ROUND, d, b);
		link[h] |= c->link_len[h] > 0;
		c->last_of[d] = c->link_len[h] - 1;
		c->listed[d] = link[h];
		if (link[h])
			push(c, h, M_NEWS, d, 0);
	}
}

/* Every history a departing rank can have had. */
static int histories(struct history *out)
{
	int n = 0, place, formed, next, form;
	u32 k;

	for (place = 0; place <= MAX_HOST; place++) {
		struct history h = { .local = !place, .host = place ? place - 1 : 0 };

		for (formed = 0; formed <= 1; formed++) {
			for (k = 0; k <= (formed ? BARRIERS : 0); k++) {
				for (next = 0; next <= (formed && k < BARRIERS); next++) {
					for (form = formed; form <= 1; form++) {
						h.formed = formed;
						h.completed = k;
						h.sent_next = next;
						h.sent_form = form;
						out[n++] = h;
					}
				}
			}
		}
	}
	return n;
}

/* Explores every configuration of @n_dep departures; false on the first violation. */
static bool check_all(int n_dep)
{
	struct history hs[64];
	int n = histories(hs), a, b, traffic, global;
	struct config c;
	struct state s0;

	for (global = 0; global <= 1; global++) {
		for (a = 0; a < n; a++) {
			for (b = 0; b < (n_dep > 1 ? n : 1); b++) {
				for (traffic = 0; traffic < 1 << MAX_HOST; traffic++) {
					memset(&c, 0, sizeof(c));
					c.global = global;
					c.n_dep = n_dep;
					c.d[0] = hs[a];
					c.d[1] = hs[b];
					/* Every rank that departs a world had formed it. */
					if (global && (!c.d[0].formed || (n_dep > 1 && !c.d[1].formed)))
						continue;
					c.traffic[0] = traffic & 1;
					c.traffic[1] = traffic & 2;
					lay_out(&c, &s0);
					cfg = &c;
					gen++;
					n_configs++;
					if (!explore(&s0))
						return false;
				}
			}
		}
	}
	return true;
}

/* The rules themselves, on the cases the module's comments name. */
static bool check_cases(void)
{
	struct encd_departed_view v = { .settled = false, .formed = true, .barriers = 1 };

	if (encd_departure_blocks(&v, ENCD_WAIT_BARRIER, 1) ||
	    !encd_departure_blocks(&v, ENCD_WAIT_BARRIER, 2))
		return wrong("barrier 2, not 1, blocks on a rank that completed 1");
	v.settled = true;
	if (encd_departure_blocks(&v, ENCD_WAIT_FORMING, 0))
		return wrong("a comm the rank formed is blocked forming");
	v.formed = false;
	if (!encd_departure_blocks(&v, ENCD_WAIT_FORMING, 0) ||
	    !encd_departure_blocks(&v, ENCD_WAIT_BARRIER, 1))
		return wrong("a comm the rank had not formed is not blocked");
	if (encd_barriers_completed(3, true) != 2 || encd_barriers_completed(3, false) != 3 ||
	    encd_barriers_completed(0, true) != 0)
		return wrong("barriers completed miscounted");
	if (!encd_news_settles(ENCD_NEWS_LOCAL, false) || !encd_news_settles(ENCD_NEWS_DATA, true) ||
	    encd_news_settles(ENCD_NEWS_ROOT, true) || !encd_news_settles(ENCD_NEWS_ROOT, false))
		return wrong("news settles where it should not, or not where it should");
	return true;
}

static int report(const char *name, bool ok, int idx)
{
	if (ok)
		printf("ok %d %s # %lu configurations, %lu states, %lu transitions\n", idx, name,
		       n_configs, n_states, n_transitions);
	else
		printf("not ok %d %s # %s\n", idx, name, why);
	n_configs = n_states = n_transitions = 0;
	why = NULL;
	return !ok;
}

int main(void)
{
	int fails = 0;

	printf("TAP version 13\n1..3\n");
	fails += report("rules_hold_on_the_named_cases", check_cases(), 1);
	fails += report("every_order_of_one_departure_is_safe_and_ends", check_all(1), 2);
	fails += report("every_order_of_two_departures_is_safe_and_ends", check_all(2), 3);
	printf("# %d passed, %d failed\n", 3 - fails, fails);
	return fails ? 1 : 0;
}
