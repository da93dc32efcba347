/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small raw client of the "encd" generic netlink family, the one the
 * tests share: open a socket and resolve the family, build a request (any
 * header, any attributes), read every answer to it (each data message to a
 * callback, the ack's error and extended ack), join the events group and
 * wait for an event. netlink_test holds the family to its specification
 * with it, netns_test counts what a request brings back in another
 * namespace, and fuzz_test sends whatever it likes.
 */
#ifndef _ENCD_GENL_H
#define _ENCD_GENL_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/encd.h>

#define ENCD_GENL_BUF		(1 << 16)
/* How long an answer may take to come: far more than the kernel needs. */
#define ENCD_GENL_TIMEOUT_MS	30000

struct encd_genl {
	int fd;
	uint16_t family;
	uint32_t events;	/* the events group's id */
	uint32_t seq;		/* of the last request */
	size_t recv_len;	/* bytes each recv() of an answer asks for; 0: all of buf */
	char buf[ENCD_GENL_BUF];
};

/* What the kernel said about the last request. */
struct encd_genl_reply {
	int err;		/* the ack's error, 0 or a negative errno */
	char msg[256];		/* NLMSGERR_ATTR_MSG */
	uint32_t offs;		/* NLMSGERR_ATTR_OFFS, 0 if none */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, -1 if none */
	int parts;		/* recv() calls that brought data messages */
	int msgs;		/* data messages */
	int first_cmd;		/* the genl command of the first one, -1 if none */
	bool intr;		/* some message had NLM_F_DUMP_INTR */
};

/* A request being built. */
struct encd_genl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[4096];
};

typedef void (*encd_genl_cb)(const struct nlmsghdr *nlh, void *arg);

/* Attributes */

#define ENCD_NLA_OK(a, rem)						\
	((rem) >= (int)sizeof(struct nlattr) && (a)->nla_len >= sizeof(struct nlattr) && \
	 (a)->nla_len <= (rem))
#define ENCD_NLA_NEXT(a, rem)						\
	((rem) -= NLA_ALIGN((a)->nla_len),				\
	 (struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))
#define encd_nla_for_each(a, head, len, rem)				\
	for ((a) = (head), (rem) = (len); ENCD_NLA_OK(a, rem); (a) = ENCD_NLA_NEXT(a, rem))

static inline void *encd_nla_data(const struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static inline int encd_nla_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

/* Writes an attribute at @at; returns where the next one goes. */
static inline struct nlattr *encd_genl_put(void *at, uint16_t type, const void *data,
					   uint16_t len)
{
	struct nlattr *a = at;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(encd_nla_data(a), data, len);
	return (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
}

/* The attributes of a genl message. */
static inline struct nlattr *encd_genl_attrs(const struct nlmsghdr *nlh, int *len)
{
	*len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
}

/* @tb[type] is the last attribute of each type up to @max, NULL if none. */
static inline void encd_genl_parse_attrs(struct nlattr *head, int len, const struct nlattr **tb,
					 int max)
{
	struct nlattr *a;
	int rem;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	encd_nla_for_each(a, head, len, rem)
		if ((a->nla_type & NLA_TYPE_MASK) <= max)
			tb[a->nla_type & NLA_TYPE_MASK] = a;
}

static inline void encd_genl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb, int max)
{
	int len;
	struct nlattr *head = encd_genl_attrs(nlh, &len);

	encd_genl_parse_attrs(head, len, tb, max);
}

static inline uint8_t encd_genl_cmd(const struct nlmsghdr *nlh)
{
	return ((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd;
}

/* Requests */

/* A request of the family (or nlctrl) with NLM_F_REQUEST | NLM_F_ACK | @flags. */
static inline void encd_genl_req_init(struct encd_genl_req *r, uint16_t type, uint8_t cmd,
				      uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->g.cmd = cmd;
	r->g.version = ENCD_GENL_VERSION;
}

/* Appends an attribute; returns its offset in the message (extended acks name it so). */
static inline uint32_t encd_genl_req_put(struct encd_genl_req *r, uint16_t type, const void *data,
					 uint16_t len)
{
	/* The request starts with its nlmsghdr: offsets are the request's. */
	char *at = (char *)r + NLMSG_ALIGN(r->n.nlmsg_len);
	struct nlattr *end = encd_genl_put(at, type, data, len);

	r->n.nlmsg_len = (char *)end - (char *)r;
	return at - (char *)r;
}

static inline uint32_t encd_genl_req_put_u32(struct encd_genl_req *r, uint16_t type, uint32_t v)
{
	return encd_genl_req_put(r, type, &v, sizeof(v));
}

/* Sends @r as the next request. */
static inline int encd_genl_send_req(struct encd_genl *nl, struct encd_genl_req *r)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	r->n.nlmsg_seq = ++nl->seq;
	return sendto(nl->fd, r, r->n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0 ?
	       -errno : 0;
}

/* Sends one message: any type, flags, command, version and attribute bytes. */
static inline int encd_genl_send(struct encd_genl *nl, uint16_t type, uint16_t flags, uint8_t cmd,
				 uint8_t version, const void *attrs, size_t len)
{
	struct encd_genl_req r;

	if (len > sizeof(r.attrs))
		return -EMSGSIZE;
	encd_genl_req_init(&r, type, cmd, 0);
	r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + len);
	r.n.nlmsg_flags = flags;
	r.g.version = version;
	memcpy(r.attrs, attrs, len);
	return encd_genl_send_req(nl, &r);
}

static inline void encd_genl_extack(const struct nlmsghdr *nlh, unsigned int off,
				    struct encd_genl_reply *rep)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int len = nlh->nlmsg_len - NLMSG_HDRLEN - off;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || len <= 0)
		return;
	encd_genl_parse_attrs((struct nlattr *)((char *)NLMSG_DATA(nlh) + off), len, tb,
			      NLMSGERR_ATTR_MAX);
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(rep->msg, sizeof(rep->msg), "%s",
			 (char *)encd_nla_data(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_OFFS])
		rep->offs = *(uint32_t *)encd_nla_data(tb[NLMSGERR_ATTR_OFFS]);
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		rep->miss_type = *(uint32_t *)encd_nla_data(tb[NLMSGERR_ATTR_MISS_TYPE]);
}

/*
 * Reads the answers to the last request (sent with NLM_F_ACK) to their end:
 * its ack, or for a dump NLMSG_DONE; every data message goes to @cb (may be
 * NULL). Returns rep->err: the ack's error, or -ETIMEDOUT when no answer
 * came for ENCD_GENL_TIMEOUT_MS, or recv()'s errno.
 */
static inline int encd_genl_reply(struct encd_genl *nl, struct encd_genl_reply *rep,
				  encd_genl_cb cb, void *arg)
{
	struct pollfd p = { .fd = nl->fd, .events = POLLIN };
	struct nlmsghdr *h;
	bool data;
	int len;

	memset(rep, 0, sizeof(*rep));
	rep->miss_type = -1;
	rep->first_cmd = -1;
	for (;;) {
		if (poll(&p, 1, ENCD_GENL_TIMEOUT_MS) != 1)
			return rep->err = -ETIMEDOUT;
		len = recv(nl->fd, nl->buf, nl->recv_len ?: sizeof(nl->buf), 0);
		if (len < 0)
			return rep->err = -errno;
		data = false;
		for (h = (struct nlmsghdr *)nl->buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				rep->intr = true;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);
				unsigned int off = sizeof(*e);

				if (!(h->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - NLMSG_HDRLEN;
				encd_genl_extack(h, off, rep);
				return rep->err = e->error;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int status = *(int *)NLMSG_DATA(h);

				encd_genl_extack(h, sizeof(status), rep);
				return rep->err = status < 0 ? status : 0;
			}
			data = true;
			if (rep->first_cmd < 0)
				rep->first_cmd = encd_genl_cmd(h);
			rep->msgs++;
			if (cb)
				cb(h, arg);
		}
		rep->parts += data;
	}
}

/* Sends @r and reads the answers to it (encd_genl_reply()). */
static inline int encd_genl_talk(struct encd_genl *nl, struct encd_genl_req *r, encd_genl_cb cb,
				 void *arg, struct encd_genl_reply *rep)
{
	int err = encd_genl_send_req(nl, r);

	if (err) {
		memset(rep, 0, sizeof(*rep));
		return rep->err = err;
	}
	return encd_genl_reply(nl, rep, cb, arg);
}

/* The socket */

static inline void encd_genl_family_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1], *g[CTRL_ATTR_MCAST_GRP_MAX + 1];
	struct encd_genl *nl = arg;
	struct nlattr *a;
	int rem;

	encd_genl_parse(nlh, tb, CTRL_ATTR_MAX);
	if (tb[CTRL_ATTR_FAMILY_ID])
		nl->family = *(uint16_t *)encd_nla_data(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return;
	encd_nla_for_each(a, (struct nlattr *)encd_nla_data(tb[CTRL_ATTR_MCAST_GROUPS]),
			  encd_nla_len(tb[CTRL_ATTR_MCAST_GROUPS]), rem) {
		encd_genl_parse_attrs(encd_nla_data(a), encd_nla_len(a), g,
				      CTRL_ATTR_MCAST_GRP_MAX);
		if (g[CTRL_ATTR_MCAST_GRP_NAME] && g[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(encd_nla_data(g[CTRL_ATTR_MCAST_GRP_NAME]), ENCD_MCGRP_EVENTS))
			nl->events = *(uint32_t *)encd_nla_data(g[CTRL_ATTR_MCAST_GRP_ID]);
	}
}

/*
 * A socket in the caller's network namespace, with extended acks, and the
 * family and its events group resolved. Returns 0 or a negative errno
 * (-ENOENT: no such family here). Every recv() asks for @recv_len bytes (0:
 * the whole buffer) from the first one on: the kernel sizes a dump's
 * messages by the largest recv() the socket has seen.
 */
static inline int encd_genl_open_recv(struct encd_genl *nl, size_t recv_len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct encd_genl_reply rep;
	struct encd_genl_req r;
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	nl->recv_len = recv_len;
	nl->seq = 1000;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	if (setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) ||
	    bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		goto fail;
	}
	encd_genl_req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	r.g.version = 1;
	encd_genl_req_put(&r, CTRL_ATTR_FAMILY_NAME, ENCD_GENL_NAME, sizeof(ENCD_GENL_NAME));
	err = encd_genl_talk(nl, &r, encd_genl_family_cb, nl, &rep);
	if (!err && (!nl->family || !nl->events))
		err = -EPROTO;
	if (!err)
		return 0;
fail:
	close(nl->fd);
	nl->fd = -1;
	return err;
}

static inline int encd_genl_open(struct encd_genl *nl)
{
	return encd_genl_open_recv(nl, 0);
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
			  sizeof(nl->events)) ? -errno : 0;
}

/*
 * The next event of the family within @timeout_ms, or NULL if none came
 * (answers to requests are passed over). It lives in @nl->buf.
 */
static inline const struct nlmsghdr *encd_genl_next_event(struct encd_genl *nl, int timeout_ms)
{
	struct pollfd p = { .fd = nl->fd, .events = POLLIN };
	struct nlmsghdr *h;
	int len;

	while (poll(&p, 1, timeout_ms) == 1) {
		len = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
		if (len < 0)
			return NULL;
		for (h = (struct nlmsghdr *)nl->buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len))
			if (!h->nlmsg_seq && h->nlmsg_type == nl->family)
				return h;
	}
	return NULL;
}

/* Requests the tests make often */

/* A dump of GCOMM_GET or NODE_GET narrowed to one core (-1: all); rep->err. */
static inline int encd_genl_dump(struct encd_genl *nl, uint8_t cmd, int nec_dev,
				 struct encd_genl_reply *rep)
{
	struct encd_genl_req r;

	encd_genl_req_init(&r, nl->family, cmd, NLM_F_DUMP);
	if (nec_dev >= 0)
		encd_genl_req_put_u32(&r, cmd == ENCD_NL_CMD_NODE_GET ? ENCD_A_NODE_NEC_DEV :
				      ENCD_A_GCOMM_NEC_DEV, nec_dev);
	return encd_genl_talk(nl, &r, NULL, NULL, rep);
}

/* GCOMM_GET of (nec_dev, ctx): the ack's error (0 when one comm came back). */
static inline int encd_genl_gcomm_get(struct encd_genl *nl, uint32_t nec_dev, uint32_t ctx)
{
	struct encd_genl_reply rep;
	struct encd_genl_req r;
	int err;

	encd_genl_req_init(&r, nl->family, ENCD_NL_CMD_GCOMM_GET, 0);
	encd_genl_req_put_u32(&r, ENCD_A_GCOMM_NEC_DEV, nec_dev);
	encd_genl_req_put_u32(&r, ENCD_A_GCOMM_CTX, ctx);
	err = encd_genl_talk(nl, &r, NULL, NULL, &rep);
	if (!err && rep.msgs != 1)
		return -EPROTO;
	return err;
}

#endif /* _ENCD_GENL_H */
