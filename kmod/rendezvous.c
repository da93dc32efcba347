// SPDX-License-Identifier: GPL-2.0
/*
 * World rendezvous through root_comm_id ("host:port").
 *
 * The rank with g_device_id 0 listens on root_comm_id; that listener stays
 * its peer listener afterwards. Every other rank connects (retrying until the
 * deadline while the root is not up yet), opens a listener of its own on the
 * address it reached the root from, and sends HELLO: the world size, its
 * g_device_id, that listener's address, its host identity and pod facts. The
 * root answers a HELLO it cannot accept with REJECT and a sentence naming the
 * offending rank, and keeps waiting for the right one; once every id has
 * arrived it sends each rank the peer table, which carries a random world
 * token that every later peer link proves. Ranks on one host and on other
 * hosts are treated alike.
 */
#include <linux/delay.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <net/sock.h>

#include "rendezvous.h"
#include "transport.h"

#define HELLO_MS	5000

struct encd_wire_peer {
	struct encd_wire_addr addr;
	u8 host_id[ENCD_HOST_ID_LEN];
	__be32 pod_type;
	__be32 pod_node_id;
	__be32 pod_sz;
	__be32 nec_dev;
} __packed;

struct encd_hello {
	__be32 world_size;
	__be32 g_device_id;
	struct encd_wire_peer self;
} __packed;

struct encd_peers_hdr {
	__be64 token;
	__be32 world_size;
	__be32 __reserved;
} __packed;

static void peer_to_wire(const struct encd_peer_info *p, const struct sockaddr_storage *ss,
			 struct encd_wire_peer *w)
{
	encd_addr_to_wire(ss, &w->addr);
	memcpy(w->host_id, p->host_id, sizeof(w->host_id));
	w->pod_type = htonl(p->pod_type);
	w->pod_node_id = htonl(p->pod_node_id);
	w->pod_sz = htonl(p->pod_sz);
	w->nec_dev = htonl(p->nec_dev);
}

static int peer_from_wire(const struct encd_wire_peer *w, struct encd_peer_info *p,
			  struct sockaddr_storage *ss)
{
	memcpy(p->host_id, w->host_id, sizeof(p->host_id));
	p->pod_type = ntohl(w->pod_type);
	p->pod_node_id = ntohl(w->pod_node_id);
	p->pod_sz = ntohl(w->pod_sz);
	p->nec_dev = ntohl(w->nec_dev);
	return encd_addr_from_wire(&w->addr, ss);
}

/*
 * Tells a rank why the root turns it away (REJECT, the errno it should fail
 * with in the tag, a sentence as payload) and hangs up. It gets a short
 * deadline of its own: the operation's may be what just ran out.
 */
static void reject_with(struct encd_xport *x, struct socket *s, int err, const char *text)
{
	unsigned long deadline = x->deadline;

	x->deadline = jiffies + msecs_to_jiffies(HELLO_MS / 4);
	encd_frame_send(x, s, ENCD_WIRE_REJECT, -err, text, strlen(text));
	x->deadline = deadline;
	encd_sock_close(s);
}

static __printf(3, 4) void reject(struct encd_xport *x, struct socket *s, const char *fmt, ...)
{
	char text[160];
	va_list args;

	va_start(args, fmt);
	vscnprintf(text, sizeof(text), fmt, args);
	va_end(args);
	pr_info("root: %s\n", text);
	x->rejected++;
	reject_with(x, s, -EINVAL, text);
}

static int root_missing(struct encd_xport *x, int err, struct socket **conns, u32 n, u32 got)
{
	char list[64];
	size_t off = 0;
	u32 i, shown = 0;

	list[0] = '\0';
	for (i = 1; i < n && shown < 8; i++) {
		if (conns[i])
			continue;
		off += scnprintf(list + off, sizeof(list) - off, "%s%u", shown ? ", " : "", i);
		shown++;
	}
	return encd_xport_fail(x, err,
			      "root: %u of %u ranks arrived before the wait ended (%s); missing: %s%s",
			      got, n, err == -ETIMEDOUT ? "timed out" : "interrupted", list,
			      got + shown < n ? ", ..." : "");
}

static int root_rendezvous(struct encd_xport *x, const struct sockaddr_storage *root,
			   const struct encd_peer_info *self, struct encd_peer_info *peers)
{
	struct encd_wire_peer *wpeer;
	struct encd_peers_hdr *ph;
	struct socket **conns;
	size_t table_len;
	u32 n = x->nranks, got = 1, i;
	void *table = NULL;
	int err;

	memcpy(&x->peer_addr[0], root, sizeof(*root));
	peers[0] = *self;
	get_random_bytes(&x->token, sizeof(x->token));
	if (n == 1)
		return 0;

	err = encd_sock_listen(x->net, root, &x->listener);
	if (err)
		return encd_xport_fail(x, err, "root: cannot listen on %pISpc (error %d)", root, err);

	conns = kvcalloc(n, sizeof(*conns), GFP_KERNEL);
	if (!conns)
		return -ENOMEM;

	while (got < n) {
		struct encd_frame_hdr h;
		struct encd_hello *hello;
		struct sockaddr_storage ss;
		struct encd_peer_info info;
		unsigned long hs;
		struct socket *s;
		bool secret_ok;
		u32 id, ws, len;

		err = encd_sock_accept(x, &s);
		if (err) {
			err = root_missing(x, err, conns, n, got);
			goto out;
		}
		hs = min(x->deadline, jiffies + msecs_to_jiffies(HELLO_MS));
		err = encd_frame_recv(x, s, hs, &h, (void **)&hello, sizeof(*hello) + ENCD_MAC_LEN);
		if (err == -EINTR) {
			encd_sock_close(s);
			err = root_missing(x, err, conns, n, got);
			goto out;
		}
		len = err ? 0 : ntohl(h.length);
		if (err || ntohs(h.type) != ENCD_WIRE_HELLO ||
		    (len != sizeof(*hello) && len != sizeof(*hello) + ENCD_MAC_LEN)) {
			x->rejected++;
			pr_info_ratelimited("root: turned away a connection that sent no HELLO (%d)\n",
					    err);
			kvfree(hello);
			encd_sock_close(s);
			continue;
		}
		ws = ntohl(hello->world_size);
		id = ntohl(hello->g_device_id);
		secret_ok = len == sizeof(*hello) + encd_xport_mac_len(x) &&
			    encd_xport_mac_ok(x, hello, sizeof(*hello), (u8 *)(hello + 1));
		err = peer_from_wire(&hello->self, &info, &ss);
		kvfree(hello);
		if (!secret_ok)
			reject(x, s, "rank %u does not hold the world secret of the root", id);
		else if (ws != n)
			reject(x, s, "rank %u asked for a world of %u ranks, the root's has %u",
			       id, ws, n);
		else if (id >= n)
			reject(x, s, "rank %u is not below the world size %u", id, n);
		else if (!id || conns[id])
			reject(x, s, "a second rank with global device id %u", id);
		else if (err)
			reject(x, s, "rank %u sent no usable listen address", id);
		else {
			conns[id] = s;
			peers[id] = info;
			memcpy(&x->peer_addr[id], &ss, sizeof(ss));
			got++;
		}
	}

	table_len = sizeof(*ph) + (size_t)n * sizeof(*wpeer);
	table = kvzalloc(table_len + ENCD_MAC_LEN, GFP_KERNEL);
	if (!table) {
		err = -ENOMEM;
		goto out;
	}
	ph = table;
	ph->token = cpu_to_be64(x->token);
	ph->world_size = htonl(n);
	wpeer = table + sizeof(*ph);
	for (i = 0; i < n; i++)
		peer_to_wire(&peers[i], &x->peer_addr[i], &wpeer[i]);
	err = encd_xport_mac(x, table, table_len, table + table_len);
	if (err)
		goto out;
	for (i = 1; i < n; i++) {
		err = encd_frame_send(x, conns[i], ENCD_WIRE_PEERS, 0, table,
				     table_len + encd_xport_mac_len(x));
		if (err) {
			err = encd_xport_fail(x, err,
					     "root: sending the peer table to rank %u failed (%d)",
					     i, err);
			goto out;
		}
	}
	err = 0;
out:
	kvfree(table);
	for (i = 0; i < n; i++) {
		/* The ranks that came learn why the world did not form, at once. */
		if (err && conns[i])
			reject_with(x, conns[i], err == -EINTR ? -ECONNABORTED : err, x->err);
		else
			encd_sock_close(conns[i]);
	}
	kvfree(conns);
	return err;
}

/*
 * One attempt: connect to the root, make sure this rank listens (where the
 * root saw it come from: that address routes), send HELLO and read the
 * root's answer into *@h and *@bufp.
 */
static int hello_once(struct encd_xport *x, const struct sockaddr_storage *root,
		      const struct encd_peer_info *self, struct encd_frame_hdr *h, void **bufp)
{
	struct {
		struct encd_hello hello;
		u8 mac[ENCD_MAC_LEN];
	} __packed msg = {};
	struct encd_hello *hello = &msg.hello;
	struct sockaddr_storage local;
	struct socket *s;
	int err;

	err = encd_sock_connect(x, root, true, &s);
	if (err)
		return encd_xport_fail(x, err, "rank %u: cannot reach the root at %pISpc: %s",
				      x->rank, root,
				      err == -ETIMEDOUT ? "timed out" :
				      err == -EINTR ? "interrupted" : "socket error");

	if (!x->listener) {
		err = kernel_getsockname(s, (struct sockaddr *)&local);
		if (err < 0)
			goto out;
		if (local.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&local)->sin6_port = 0;
		else
			((struct sockaddr_in *)&local)->sin_port = 0;
		err = encd_sock_listen(x->net, &local, &x->listener);
		if (err) {
			encd_xport_fail(x, err, "rank %u: cannot listen on %pISc (error %d)",
				       x->rank, &local, err);
			goto out;
		}
		err = kernel_getsockname(x->listener, (struct sockaddr *)&x->listen_addr);
		if (err < 0)
			goto out;
	}

	hello->world_size = htonl(x->nranks);
	hello->g_device_id = htonl(x->rank);
	peer_to_wire(self, &x->listen_addr, &hello->self);
	err = encd_xport_mac(x, hello, sizeof(*hello), msg.mac);
	if (!err)
		err = encd_frame_send(x, s, ENCD_WIRE_HELLO, 0, &msg,
				     sizeof(*hello) + encd_xport_mac_len(x));
	if (!err)
		err = encd_frame_recv(x, s, x->deadline, h, bufp, ENCD_FRAME_MAX);
out:
	encd_sock_close(s);
	return err < 0 ? err : 0;
}

static int rank_rendezvous(struct encd_xport *x, const struct sockaddr_storage *root,
			   const struct encd_peer_info *self, struct encd_peer_info *peers)
{
	struct encd_wire_peer *wpeer;
	struct encd_peers_hdr *ph;
	struct encd_frame_hdr h;
	u32 n = x->nranks, i, len;
	void *buf = NULL;
	int err;

	/*
	 * A root that hangs up without a word turned the connection away
	 * before the HELLO arrived (a rank too slow to send it): try again,
	 * within the deadline.
	 */
	while ((err = hello_once(x, root, self, &h, &buf)) == -ECONNRESET &&
	       time_before(jiffies, x->deadline)) {
		if (msleep_interruptible(100)) {
			err = -EINTR;
			break;
		}
	}
	if (err) {
		encd_xport_fail(x, err, "rank %u: no peer table from the root: %s", x->rank,
			       err == -ETIMEDOUT ? "timed out" : err == -EINTR ? "interrupted" :
			       err == -ECONNRESET ? "the root closed the connection" :
			       "protocol error");
		goto out;
	}
	len = ntohl(h.length);
	if (ntohs(h.type) == ENCD_WIRE_REJECT) {
		err = -(int)ntohl(h.tag);
		if (err != -ETIMEDOUT && err != -ECONNABORTED)
			err = -EINVAL;
		err = encd_xport_fail(x, err, "rank %u: the root %s: %.*s", x->rank,
				     err == -EINVAL ? "refused it" : "gave up",
				     (int)min_t(u32, len, 200), (char *)buf);
		goto out;
	}
	ph = buf;
	if (ntohs(h.type) != ENCD_WIRE_PEERS ||
	    len != sizeof(*ph) + (size_t)n * sizeof(*wpeer) + encd_xport_mac_len(x) ||
	    ntohl(ph->world_size) != n) {
		err = encd_xport_fail(x, -EPROTO, "rank %u: the root sent a bad peer table",
				     x->rank);
		goto out;
	}
	len -= encd_xport_mac_len(x);
	if (!encd_xport_mac_ok(x, buf, len, buf + len)) {
		err = encd_xport_fail(x, -EACCES,
				     "rank %u: the root does not hold this rank's world secret",
				     x->rank);
		goto out;
	}
	x->token = be64_to_cpu(ph->token);
	wpeer = buf + sizeof(*ph);
	for (i = 0; i < n; i++) {
		if (peer_from_wire(&wpeer[i], &peers[i], &x->peer_addr[i])) {
			err = encd_xport_fail(x, -EPROTO,
					     "rank %u: the root sent no address for rank %u",
					     x->rank, i);
			goto out;
		}
	}
	err = 0;
out:
	kvfree(buf);
	return err;
}

int encd_rendezvous(struct encd_xport *x, const struct sockaddr_storage *root, u32 world_size,
		   u32 g_device_id, const struct encd_peer_info *self,
		   struct encd_peer_info **peersp)
{
	struct encd_peer_info *peers;
	int err;

	x->rank = g_device_id;
	x->nranks = world_size;
	x->peer_addr = kvcalloc(world_size, sizeof(*x->peer_addr), GFP_KERNEL);
	peers = kvcalloc(world_size, sizeof(*peers), GFP_KERNEL);
	if (!x->peer_addr || !peers) {
		kvfree(peers);
		return -ENOMEM;
	}
	if (g_device_id)
		err = rank_rendezvous(x, root, self, peers);
	else
		err = root_rendezvous(x, root, self, peers);
	if (!err)
		err = encd_xport_links_init(x);
	if (err) {
		kvfree(peers);
		return err;
	}
	*peersp = peers;
	return 0;
}
