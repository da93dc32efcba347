/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small raw client of the "encd" generic netlink family, for the tests
 * that only count what a request brings back (netns_test) or send whatever
 * they like (fuzz_test): open and resolve the family, send a request with
 * any header and attributes, read every answer to it, join the events
 * group and wait for an event.
 */
#ifndef _ENCD_GENL_H
#define _ENCD_GENL_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/encd.h>

#define ENCD_GENL_BUF	(1 << 16)

struct encd_genl {
	int fd;
	uint16_t family;
	uint32_t events;	/* the events group's id */
	uint32_t seq;
	char buf[ENCD_GENL_BUF];
};

/* What the answers to one request were. */
struct encd_genl_reply {
	int err;		/* the ack's error, 0 or a negative errno */
	int msgs;		/* data messages */
	int first_cmd;		/* the genl command of the first one, -1 if none */
};

static inline struct nlattr *encd_genl_put(void *at, uint16_t type, const void *data,
					   uint16_t len)
{
	struct nlattr *a = at;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	return (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
}

/* Sends one message: any type, flags, command and attribute bytes. */
static inline int encd_genl_send(struct encd_genl *nl, uint16_t type, uint16_t flags, uint8_t cmd,
				 uint8_t version, const void *attrs, size_t len)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char attrs[4096];
	} req = {};
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (len > sizeof(req.attrs))
		return -EMSGSIZE;
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + len);
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = flags;
	req.n.nlmsg_seq = ++nl->seq;
	req.g.cmd = cmd;
	req.g.version = version;
	memcpy(req.attrs, attrs, len);
	if (sendto(nl->fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

/*
 * Reads the answers to the last request (sent with NLM_F_ACK) until its ack
 * or, for a dump, NLMSG_DONE, waiting at most @timeout_ms for each
 * part. Returns 0, or -ETIMEDOUT when an answer did not come.
 */
static inline int encd_genl_reply(struct encd_genl *nl, struct encd_genl_reply *rep,
				  int timeout_ms)
{
	struct pollfd p = { .fd = nl->fd, .events = POLLIN };
	struct nlmsghdr *n;
	int len;

	rep->err = 0;
	rep->msgs = 0;
	rep->first_cmd = -1;
	for (;;) {
		if (poll(&p, 1, timeout_ms) != 1)
			return -ETIMEDOUT;
		len = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
		if (len < 0)
			return -errno;
		for (n = (struct nlmsghdr *)nl->buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_seq != nl->seq)
				continue;
			if (n->nlmsg_type == NLMSG_ERROR) {
				rep->err = ((struct nlmsgerr *)NLMSG_DATA(n))->error;
				return 0;
			}
			if (n->nlmsg_type == NLMSG_DONE)
				return 0;
			if (rep->first_cmd < 0)
				rep->first_cmd = ((struct genlmsghdr *)NLMSG_DATA(n))->cmd;
			rep->msgs++;
		}
	}
}

/* The family's id and the events group's, from nlctrl. */
static inline int encd_genl_resolve(struct encd_genl *nl)
{
	char attrs[64];
	struct nlattr *end = encd_genl_put(attrs, CTRL_ATTR_FAMILY_NAME, ENCD_GENL_NAME,
					   sizeof(ENCD_GENL_NAME));
	struct nlmsghdr *n = (struct nlmsghdr *)nl->buf;
	struct nlattr *a, *g, *ga;
	int len, rem, grem, garem;

	if (encd_genl_send(nl, GENL_ID_CTRL, NLM_F_REQUEST, CTRL_CMD_GETFAMILY, 1, attrs,
			   (char *)end - attrs))
		return -1;
	len = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
	if (len < (int)NLMSG_LENGTH(GENL_HDRLEN) || n->nlmsg_type == NLMSG_ERROR)
		return -1;
	a = (struct nlattr *)((char *)NLMSG_DATA(n) + GENL_HDRLEN);
	rem = n->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for (; rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			nl->family = *(uint16_t *)((char *)a + NLA_HDRLEN);
		if ((a->nla_type & NLA_TYPE_MASK) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		g = (void *)((char *)a + NLA_HDRLEN);
		for (grem = a->nla_len - NLA_HDRLEN; grem >= NLA_HDRLEN && g->nla_len <= grem;
		     grem -= NLA_ALIGN(g->nla_len), g = (void *)((char *)g + NLA_ALIGN(g->nla_len))) {
			bool events = false;
			uint32_t id = 0;

			ga = (void *)((char *)g + NLA_HDRLEN);
			for (garem = g->nla_len - NLA_HDRLEN;
			     garem >= NLA_HDRLEN && ga->nla_len >= NLA_HDRLEN && ga->nla_len <= garem;
			     garem -= NLA_ALIGN(ga->nla_len),
			     ga = (void *)((char *)ga + NLA_ALIGN(ga->nla_len))) {
				if (ga->nla_type == CTRL_ATTR_MCAST_GRP_ID)
					id = *(uint32_t *)((char *)ga + NLA_HDRLEN);
				if (ga->nla_type == CTRL_ATTR_MCAST_GRP_NAME)
					events = !strcmp((char *)ga + NLA_HDRLEN,
							 ENCD_MCGRP_EVENTS);
			}
			if (events)
				nl->events = id;
		}
	}
	return nl->family && nl->events ? 0 : -1;
}

/* A socket in the caller's network namespace, with the family resolved. */
static inline int encd_genl_open(struct encd_genl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	memset(nl, 0, sizeof(*nl));
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -1;
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) || encd_genl_resolve(nl)) {
		close(nl->fd);
		nl->fd = -1;
		return -1;
	}
	return 0;
}

static inline void encd_genl_close(struct encd_genl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

static inline int encd_genl_join_events(struct encd_genl *nl)
{
	return setsockopt(nl->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &nl->events,
			  sizeof(nl->events));
}

/*
 * The next event within @timeout_ms: its genl command, or -1 if none came.
 * Answers to requests (seq != 0) are skipped.
 */
static inline int encd_genl_event(struct encd_genl *nl, int timeout_ms)
{
	struct pollfd p = { .fd = nl->fd, .events = POLLIN };
	struct nlmsghdr *n;
	int len;

	while (poll(&p, 1, timeout_ms) == 1) {
		len = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
		if (len < 0)
			return -1;
		for (n = (struct nlmsghdr *)nl->buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len))
			if (!n->nlmsg_seq && n->nlmsg_type == nl->family)
				return ((struct genlmsghdr *)NLMSG_DATA(n))->cmd;
	}
	return -1;
}

/* A dump of GCOMM_GET or NODE_GET narrowed to one core (-1: all). */
static inline int encd_genl_dump(struct encd_genl *nl, uint8_t cmd, int nec_dev,
				 struct encd_genl_reply *rep)
{
	char attrs[16];
	uint32_t v = nec_dev;
	struct nlattr *end = (struct nlattr *)attrs;
	int err;

	if (nec_dev >= 0)
		end = encd_genl_put(attrs, cmd == ENCD_NL_CMD_NODE_GET ? ENCD_A_NODE_NEC_DEV :
				    ENCD_A_GCOMM_NEC_DEV, &v, sizeof(v));
	err = encd_genl_send(nl, nl->family, NLM_F_REQUEST | NLM_F_DUMP | NLM_F_ACK, cmd,
			     ENCD_GENL_VERSION, attrs, (char *)end - attrs);
	return err ?: encd_genl_reply(nl, rep, 5000);
}

/* GCOMM_GET of (nec_dev, ctx): the ack's error (0 when a comm came back). */
static inline int encd_genl_gcomm_get(struct encd_genl *nl, uint32_t nec_dev, uint32_t ctx)
{
	struct encd_genl_reply rep;
	char attrs[16];
	struct nlattr *end = encd_genl_put(attrs, ENCD_A_GCOMM_NEC_DEV, &nec_dev, 4);
	int err;

	end = encd_genl_put(end, ENCD_A_GCOMM_CTX, &ctx, 4);
	err = encd_genl_send(nl, nl->family, NLM_F_REQUEST | NLM_F_ACK, ENCD_NL_CMD_GCOMM_GET,
			     ENCD_GENL_VERSION, attrs, (char *)end - attrs);
	if (!err)
		err = encd_genl_reply(nl, &rep, 5000);
	if (!err && !rep.err && rep.msgs != 1)
		return -EPROTO;
	return err ?: rep.err;
}

#endif /* _ENCD_GENL_H */
