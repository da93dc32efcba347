// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink session: family resolution, requests, one receive loop with
 * libmnl callbacks, and errors in words (see nl.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/encd.h>

#include "encctl.h"
#include "nl.h"
#include "print.h"

#define REQ_BUF		4096

/* What the kernel said about a failed request. */
struct nl_error {
	const char *msg;
	uint32_t offset;	/* of the attribute it blames, in the request; 0: none */
	int miss_type;		/* the attribute it missed, or -1 */
};

struct nl_run {
	struct encctl_nl *nl;
	mnl_cb_t cb;
	void *data;
	int err;		/* positive errno, 0 */
	struct nl_error *kerr;
};

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_run *run = data;

	return run->cb ? run->cb(nlh, run->data) : MNL_CB_OK;
}

/*
 * A dump that saw the comms change while it ran marks its messages
 * NLM_F_DUMP_INTR; libmnl stops at the first such message with EINTR,
 * which would end the command where a new try is the cure. The mark is
 * noted for the caller (encctl_gcomms_read() tries again) and taken off.
 */
static void take_dump_intr(struct encctl_nl *nl, void *buf, size_t len)
{
	struct nlmsghdr *nlh = buf;
	int left = len;

	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			nl->dump_intr = true;
			nlh->nlmsg_flags &= ~NLM_F_DUMP_INTR;
		}
	}
}

static int extack_cb(const struct nlattr *attr, void *data)
{
	struct nl_error *kerr = data;

	switch (mnl_attr_get_type(attr)) {
	case NLMSGERR_ATTR_MSG:
		if (!mnl_attr_validate(attr, MNL_TYPE_NUL_STRING))
			kerr->msg = mnl_attr_get_str(attr);
		break;
	case NLMSGERR_ATTR_OFFS:
		if (!mnl_attr_validate(attr, MNL_TYPE_U32))
			kerr->offset = mnl_attr_get_u32(attr);
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (!mnl_attr_validate(attr, MNL_TYPE_U32))
			kerr->miss_type = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

/* The extended ack of an error or done message: TLVs from @off on. */
static void parse_extack(const struct nlmsghdr *nlh, unsigned int off, struct nl_error *kerr)
{
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS && off <= mnl_nlmsg_get_payload_len(nlh))
		mnl_attr_parse(nlh, off, extack_cb, kerr);
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct nl_run *run = data;
	unsigned int off = sizeof(*e);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		run->err = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	parse_extack(nlh, off, run->kerr);
	run->err = -e->error;
	return MNL_CB_ERROR;
}

/* A dump ends here; a dump that failed half way says so in its payload. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_run *run = data;
	int status = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(status))
		memcpy(&status, mnl_nlmsg_get_payload(nlh), sizeof(status));
	if (status >= 0)
		return MNL_CB_STOP;
	parse_extack(nlh, sizeof(status), run->kerr);
	run->err = -status;
	return MNL_CB_ERROR;
}

static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = error_cb,
	[NLMSG_DONE] = done_cb,
};

/* Sends @req, runs the replies through @cb; 0 or a positive errno. */
static int nl_run(struct encctl_nl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		  struct nl_error *kerr)
{
	struct nl_run run = { .nl = nl, .cb = cb, .data = data, .kerr = kerr };
	unsigned int portid = mnl_socket_get_portid(nl->sock);
	ssize_t n;
	int ret;

	kerr->msg = NULL;
	kerr->offset = 0;
	kerr->miss_type = -1;
	nl->dump_intr = false;
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return errno;
	do {
		n = mnl_socket_recvfrom(nl->sock, nl->buf, ENCCTL_NL_BUF);
		if (n < 0)
			return errno;
		take_dump_intr(nl, nl->buf, n);
		ret = mnl_cb_run2(nl->buf, n, req->nlmsg_seq, portid, data_cb, &run, ctl_cbs,
				  MNL_ARRAY_SIZE(ctl_cbs));
	} while (ret > MNL_CB_STOP);
	if (ret == MNL_CB_ERROR)
		return run.err ? run.err : errno ? errno : EPROTO;
	return 0;
}

struct nlmsghdr *encctl_nl_request(struct encctl_nl *nl, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf + ENCCTL_NL_BUF);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = ENCD_GENL_VERSION;
	return nlh;
}

/* The type of the attribute at @offset of @req, or -1. */
static int blamed_type(const struct nlmsghdr *req, uint32_t offset)
{
	const struct nlattr *attr;

	if (offset < MNL_NLMSG_HDRLEN || offset + sizeof(*attr) > req->nlmsg_len)
		return -1;
	attr = (const struct nlattr *)((const char *)req + offset);
	return attr->nla_type & NLA_TYPE_MASK;
}

static void say_attr(struct encctl_sbuf *b, const char *how, int type,
		     const char *(*attr_name)(uint16_t type))
{
	const char *name = attr_name ? attr_name(type) : NULL;

	if (name)
		encctl_sbuf_add(b, " (%s attribute %s)", how, name);
	else
		encctl_sbuf_add(b, " (%s attribute %d)", how, type);
}

int encctl_nl_talk(struct encctl_nl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		   const char *what, const char *(*attr_name)(uint16_t type))
{
	struct encctl_sbuf b = {};
	struct nl_error kerr;
	int err, type;

	err = nl_run(nl, req, cb, data, &kerr);
	if (!err)
		return 0;

	encctl_sbuf_add(&b, "%s: %s", what, strerror(err));
	if (kerr.msg)
		encctl_sbuf_add(&b, ": %s", kerr.msg);
	type = blamed_type(req, kerr.offset);
	if (type >= 0)
		say_attr(&b, "bad", type, attr_name);
	if (kerr.miss_type >= 0)
		say_attr(&b, "missing", kerr.miss_type, attr_name);
	if (err == EPERM)
		encctl_sbuf_add(&b, ": this needs CAP_NET_ADMIN");
	encctl_err(0, "%s", b.s);
	errno = err;
	return -1;
}

struct family_info {
	uint16_t id;
	uint32_t events_group;
};

static int mcgrp_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = {};
	struct family_info *fam = data;

	encctl_nl_parse_nested(attr, tb, CTRL_ATTR_MCAST_GRP_MAX);
	if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
	    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]), ENCD_MCGRP_EVENTS))
		fam->events_group = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = {};
	struct family_info *fam = data;

	encctl_nl_parse(nlh, tb, CTRL_ATTR_MAX);
	if (tb[CTRL_ATTR_FAMILY_ID])
		fam->id = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_MCAST_GROUPS])
		mnl_attr_parse_nested(tb[CTRL_ATTR_MCAST_GROUPS], mcgrp_cb, fam);
	return MNL_CB_OK;
}

int encctl_nl_open(struct encctl_nl *nl)
{
	struct family_info fam = {};
	struct nl_error kerr;
	struct nlmsghdr *req;
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	nl->buf = malloc(ENCCTL_NL_BUF + REQ_BUF);
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->buf || !nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		encctl_err(0, "cannot open a generic netlink socket: %s", strerror(errno));
		encctl_nl_close(nl);
		return -1;
	}
	/* Best effort: an old kernel without them still answers. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->seq = time(NULL);

	nl->family = GENL_ID_CTRL;
	req = encctl_nl_request(nl, CTRL_CMD_GETFAMILY, 0);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(req))->version = 1;
	mnl_attr_put_strz(req, CTRL_ATTR_FAMILY_NAME, ENCD_GENL_NAME);
	err = nl_run(nl, req, family_cb, &fam, &kerr);
	if (err == ENOENT || (!err && !fam.id)) {
		encctl_err(0, "encd generic netlink family not found: is the encd module loaded?");
	} else if (err) {
		encctl_err(0, "cannot resolve the encd generic netlink family: %s", strerror(err));
	} else {
		nl->family = fam.id;
		nl->events_group = fam.events_group;
		return 0;
	}
	encctl_nl_close(nl);
	return -1;
}

void encctl_nl_close(struct encctl_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl->buf);
	memset(nl, 0, sizeof(*nl));
}

int encctl_nl_subscribe(struct encctl_nl *nl)
{
	if (!nl->events_group)
		return encctl_err(-1, "the encd family has no \"%s\" group", ENCD_MCGRP_EVENTS);
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP, &nl->events_group,
				  sizeof(nl->events_group)) < 0)
		return encctl_err(-1, "cannot join the encd events group: %s", strerror(errno));
	return 0;
}

struct parse_ctx {
	const struct nlattr **tb;
	uint16_t max;
};

static int parse_cb(const struct nlattr *attr, void *data)
{
	struct parse_ctx *ctx = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type <= ctx->max)
		ctx->tb[type] = attr;
	return MNL_CB_OK;
}

void encctl_nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb, uint16_t max)
{
	struct parse_ctx ctx = { .tb = tb, .max = max };

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), parse_cb, &ctx);
}

void encctl_nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb, uint16_t max)
{
	struct parse_ctx ctx = { .tb = tb, .max = max };

	mnl_attr_parse_nested(nest, parse_cb, &ctx);
}

uint8_t encctl_attr_u8(const struct nlattr *attr, uint8_t def)
{
	return attr && !mnl_attr_validate(attr, MNL_TYPE_U8) ? mnl_attr_get_u8(attr) : def;
}

uint32_t encctl_attr_u32(const struct nlattr *attr, uint32_t def)
{
	return attr && !mnl_attr_validate(attr, MNL_TYPE_U32) ? mnl_attr_get_u32(attr) : def;
}

int32_t encctl_attr_s32(const struct nlattr *attr, int32_t def)
{
	return (int32_t)encctl_attr_u32(attr, (uint32_t)def);
}

uint64_t encctl_attr_u64(const struct nlattr *attr, uint64_t def)
{
	return attr && !mnl_attr_validate(attr, MNL_TYPE_U64) ? mnl_attr_get_u64(attr) : def;
}

const char *encctl_attr_str(const struct nlattr *attr)
{
	return attr && !mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) ? mnl_attr_get_str(attr) :
								      NULL;
}
