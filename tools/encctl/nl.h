/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session with the "encd" generic netlink family, over libmnl: resolve
 * the family, send a request, run one receive loop with a callback per
 * message, and say in words what went wrong (with the kernel's extended
 * ack) when something did.
 */
#ifndef _ENCCTL_NL_H
#define _ENCCTL_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* Big enough for any message the kernel sends in one piece. */
#define ENCCTL_NL_BUF	65536

struct encctl_nl {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t events_group;
	uint32_t seq;
	bool dump_intr;		/* a message of the last dump had NLM_F_DUMP_INTR */
	char *buf;		/* ENCCTL_NL_BUF bytes, for requests and replies */
};

/*
 * Opens a socket and resolves the family. On failure says why through
 * encctl_err() (the module not loaded, most likely) and returns -1.
 */
int encctl_nl_open(struct encctl_nl *nl);
void encctl_nl_close(struct encctl_nl *nl);

/*
 * A request for @cmd, with NLM_F_REQUEST | NLM_F_ACK | @flags, in the
 * session's request buffer (replies go elsewhere: the request stays intact
 * so that an error can name the attribute it blames).
 */
struct nlmsghdr *encctl_nl_request(struct encctl_nl *nl, uint8_t cmd, uint16_t flags);

/*
 * Sends @req and feeds every reply message to @cb until the dump or the
 * acknowledgement ends it. Returns 0, or -1 with errno set after saying
 * through encctl_err() what failed: "@what: <strerror>: <the kernel's message>".
 * @attr_name (may be NULL) names a request attribute that the kernel's
 * extended ack points at.
 */
int encctl_nl_talk(struct encctl_nl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		   const char *what, const char *(*attr_name)(uint16_t type));

/* Joins the "events" multicast group: 0, or -1 after saying why. */
int encctl_nl_subscribe(struct encctl_nl *nl);

/*
 * The payload attributes of a genetlink message, by type, up to @max; the
 * others are ignored (a newer kernel may send more).
 */
void encctl_nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb, uint16_t max);
void encctl_nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb, uint16_t max);

/*
 * An attribute's value, or @def when it is absent or not of that type (a
 * malformed attribute is treated as absent, never read past).
 */
uint32_t encctl_attr_u32(const struct nlattr *attr, uint32_t def);
int32_t encctl_attr_s32(const struct nlattr *attr, int32_t def);
uint64_t encctl_attr_u64(const struct nlattr *attr, uint64_t def);
/* NULL when absent or not NUL-terminated. */
const char *encctl_attr_str(const struct nlattr *attr);

#endif /* _ENCCTL_NL_H */
