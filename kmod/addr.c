// SPDX-License-Identifier: GPL-2.0
/*
 * Socket addresses: as root_comm_id spells them, as they travel in the
 * wire protocol, and errnos in words for the sentences about sockets.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "encd_private.h"

/**
 * encd_addr_parse() - root_comm_id to a socket address
 * @s: "a.b.c.d:port", "[v6]:port" or "localhost:port"; numeric only
 * @ss: out: the address
 *
 * Return: 0, or -EINVAL for anything else (port 0 included).
 */
int encd_addr_parse(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *colon, *end;
	u16 port;

	memset(ss, 0, sizeof(*ss));
	colon = strrchr(s, ':');
	if (!colon || kstrtou16(colon + 1, 10, &port) || !port)
		return -EINVAL;
	if (s[0] == '[') {
		if (colon == s || colon[-1] != ']' ||
		    !in6_pton(s + 1, colon - 1 - (s + 1), sin6->sin6_addr.s6_addr, -1, &end) ||
		    end != colon - 1)
			return -EINVAL;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return 0;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (colon - s == 9 && !strncmp(s, "localhost", 9)) {
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return 0;
	}
	if (!in4_pton(s, colon - s, (u8 *)&sin->sin_addr.s_addr, -1, &end) || end != colon)
		return -EINVAL;
	return 0;
}

/**
 * encd_addr_set_port() - changes an address's port
 * @ss: the address, AF_INET or AF_INET6
 * @port: the port, host order
 */
void encd_addr_set_port(struct sockaddr_storage *ss, u16 port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/**
 * encd_addr_same_host() - whether two addresses name the same host
 * @a: one address, AF_INET or AF_INET6
 * @b: the other
 *
 * Return: whether their families and IP addresses are equal (the ports
 * are not compared).
 */
bool encd_addr_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6)
		return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
				       &((const struct sockaddr_in6 *)b)->sin6_addr);
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}

/**
 * encd_addr_to_wire() - an address as the wire protocol carries it
 * @ss: the address
 * @w: out: its wire form
 */
void encd_addr_to_wire(const struct sockaddr_storage *ss, struct encd_wire_addr *w)
{
	memset(w, 0, sizeof(*w));
	w->family = htons(ss->ss_family);
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		w->port = sin6->sin6_port;
		memcpy(w->addr, &sin6->sin6_addr, 16);
	} else {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		w->port = sin->sin_port;
		memcpy(w->addr, &sin->sin_addr, 4);
	}
}

/**
 * encd_addr_from_wire() - an address from the wire
 * @w: its wire form, from a peer
 * @ss: out: the address
 *
 * Return: 0, or -EINVAL for a family other than AF_INET(6) or port 0.
 */
int encd_addr_from_wire(const struct encd_wire_addr *w, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	switch (ntohs(w->family)) {
	case AF_INET6: {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = w->port;
		memcpy(&sin6->sin6_addr, w->addr, 16);
		break;
	}
	case AF_INET: {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = w->port;
		memcpy(&sin->sin_addr, w->addr, 4);
		break;
	}
	default:
		return -EINVAL;
	}
	return w->port ? 0 : -EINVAL;
}

/**
 * encd_errno_name() - what a socket operation's error means, in words
 * @err: a negative errno
 *
 * Return: a few words.
 */
const char *encd_errno_name(int err)
{
	switch (err) {
	case -ETIMEDOUT:
		return "timed out";
	case -EINTR:
		return "interrupted";
	case -ECONNRESET:
	case -EPIPE:
		return "the connection was closed";
	case -ECONNREFUSED:
		return "connection refused";
	case -ECONNABORTED:
		return "the world was aborted";
	case -EACCES:
		return "it does not hold the world key";
	case -EPROTO:
		return "it broke the protocol";
	case -EMSGSIZE:
		return "it sent a frame of a size its type does not allow";
	case -EBADMSG:
		return "a frame failed authentication";
	case -ENOBUFS:
		return "too much is queued for it";
	case -ENOMEM:
		return "out of memory";
	case -EADDRINUSE:
		return "the address is in use";
	case -EADDRNOTAVAIL:
		return "the address is not this host's";
	case -ENETUNREACH:
	case -EHOSTUNREACH:
		return "no route to it";
	case -EIO:
		return "an I/O error (injected)";
	default:
		return "a socket error";
	}
}
