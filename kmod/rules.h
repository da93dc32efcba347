/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The departure rules, as pure functions of explicit state, so that the
 * kernel (departure.c, and the waiters that ask it) and the user-space
 * checker (selftests/departure_rules_test.c), which explores every order
 * of the events they see, run the very same code.
 *
 * A rank that leaves its formed world departs: unlike a failure, it fails
 * only what needs it. The news of it reaches a host in one of three ways:
 * the rank left there (LOCAL); its host said so on the data link it sends
 * to this host on, behind every message the rank sent here (DATA); or the
 * root, or this host's parent in the host tree, passed on its host's word
 * (ROOT), which may overtake those messages. Its news (DEPART) says what
 * it completed: the barriers of the world's
 * comm and of every replica group's comm it had formed, and the hosts that
 * hear of it on a data link too.
 *
 * A departure is settled on a host once everything the rank sent there has
 * come: a message of it still missing then never comes.
 *
 * What waits on a departed rank asks one question: does it block me?
 * - A comm still forming is blocked once the departure is settled, unless
 *   the rank had formed it: then it sent all it owed the comm. Every rank
 *   takes part in forming a comm; without one, it never forms.
 * - Barrier number b (counted from 1) of a comm, the world's or a replica
 *   group's, is blocked when the rank completed fewer than b of them: it
 *   sent its messages of every barrier it completed, which may still be
 *   on their way, and will send none of a later one. That needs no
 *   settling, and is the same for both kinds of comm.
 * - A local barrier joins the ranks of one host, which leave it at once:
 *   it is blocked from the moment one of them leaves (barrier.c).
 *
 * The header depends on nothing but u32 and bool, which the includer
 * provides, as schedule.h does.
 */
#ifndef _ENCD_RULES_H
#define _ENCD_RULES_H

/* How the news of a departure came to a host. */
enum encd_news_via {
	ENCD_NEWS_LOCAL,	/* the rank left on this host */
	ENCD_NEWS_DATA,		/* on the data link from the rank's host */
	ENCD_NEWS_ROOT,		/* from the root, or at the root from the rank's host */
};

/*
 * Whether news of a departure settles it. News on a data link comes behind
 * all the rank sent on it. The root's may overtake what is on a data link,
 * so it settles only when the rank's host names no data link to this host
 * (@data_news_follows false): it had nothing of the rank's on its way here.
 */
static inline bool encd_news_settles(enum encd_news_via via, bool data_news_follows)
{
	return via != ENCD_NEWS_ROOT || !data_news_follows;
}

/* What a host knows of one departed rank, as far as one comm goes. */
struct encd_departed_view {
	bool settled;		/* all it sent here has come */
	bool formed;		/* it had formed the comm */
	u32 barriers;		/* the comm's barriers it completed, when formed */
};

/* What waits on the departed rank. */
enum encd_wait {
	ENCD_WAIT_FORMING,	/* a comm still forming */
	ENCD_WAIT_BARRIER,	/* a barrier of a formed comm, the world's or a group's */
	ENCD_WAIT_LOCAL_BARRIER, /* a local barrier: departure.c asks barrier.c */
};

/*
 * Whether a departure blocks @what: it never completes, and fails naming
 * the departed rank. @barrier is the barrier's number, for
 * ENCD_WAIT_BARRIER.
 */
static inline bool encd_departure_blocks(const struct encd_departed_view *d, enum encd_wait what,
					 u32 barrier)
{
	switch (what) {
	case ENCD_WAIT_FORMING:
		return d->settled && !d->formed;
	case ENCD_WAIT_BARRIER:
		return barrier > (d->formed ? d->barriers : 0);
	default:
		return false;
	}
}

/*
 * The barriers a rank completed of a comm: those it started, less one it
 * is in or gave up (@unfinished).
 */
static inline u32 encd_barriers_completed(u32 started, bool unfinished)
{
	return started - (unfinished && started ? 1 : 0);
}

#endif /* _ENCD_RULES_H */
