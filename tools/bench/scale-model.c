// SPDX-License-Identifier: GPL-2.0
/*
 * scale-model: encd's world formation at scales no machine here can run,
 * from the module's own schedule (kmod/schedule.h: the rank tree, the
 * hypercube, the host tree) and frame sizes (kmod/wire.h), next to NCCL's
 * ring bootstrap and a TCPStore-style star. A model, not a measurement.
 *
 *   scale-model [--ranks-per-host P] [--rtt-us R] [--gbps B] [--per-msg-us C]
 *               [--local-us L] [--calibrate C_US,L_US] [--sizes N,N,...]
 *
 * encd, for N ranks on H = ceil(N/P) hosts of P consecutive ranks (as the
 * root numbers hosts by their lowest rank):
 *   - bytes are counted frame by frame, exactly: every rank's messages by
 *     the schedule, each to another host a frame of header + route + body +
 *     tag; every link's handshake (HELLO, CHALLENGE, PROOF, WELCOME) and its first
 *     frame (JOIN + one REGISTER of P ranks, or LINK); the root's DIGEST of
 *     the table to each host whose parent is not the root; the TABLE down the
 *     host tree. "root B" is what the root host sends, "host" what any
 *     other sends.
 *   - time is an event model of that schedule: the hosts reach the root (a
 *     TCP connect and the handshake, 3.5 RTT; the root serves at most 64
 *     handshakes at a time and spends C per frame); the TABLE goes down the
 *     host tree (two sends of its size at B per level); validation goes up
 *     the rank tree and the unique id down the hypercube, then the ring;
 *     each message costs C (L within a host) where it arrives, plus RTT/2
 *     and its size at B across hosts; a data link is opened on first use
 *     (connect + handshake, 2 RTT before its first frame), as the module
 *     does. Host CPUs are otherwise not contended.
 * NCCL's ring bootstrap: every rank sends its address to the root (N
 * connections, C each at the root), the root sends each rank its ring
 * neighbour's address (N addresses), then the ring allgather of all
 * addresses in N/2 steps of RTT/2 + C + A/B. A TCPStore-style star: every
 * rank sets its address at the root, then reads every rank's entry from it:
 * N^2 entries leave the root, which spends C per request. A = 64 bytes, an
 * address entry with its framing, for both.
 *
 * A second table is a job's end, every rank leaving: encd's blocks of
 * departures, one a host, passed down the host tree (model_encd_end()),
 * against NCCL's (nothing at a root) and a TCPStore-style end barrier.
 *
 * --calibrate takes the per-message costs measured in the VM (make
 * bench-bootstrap prints them on its "calibration:" line); the table then
 * gives encd's formation with both the nominal and the calibrated costs.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define __packed __attribute__((packed))

#include "schedule.h"
#include "wire.h"

#define HDR		sizeof(struct encd_wire_hdr)
#define FRAME(len)	(HDR + (len) + ENCD_TAG_LEN)	/* an authenticated frame */
#define ROUTE		sizeof(struct encd_wire_route)
#define SIG_FRAME	FRAME(ROUTE + sizeof(struct encd_wire_sig))
#define UID_FRAME	FRAME(ROUTE + ENCD_WIRE_UID_LEN)
#define RING_FRAME	FRAME(ROUTE + ENCD_WIRE_RING_LEN)
#define HELLO_FRAME	(HDR + sizeof(struct encd_wire_hello))		/* untagged */
#define CHALLENGE_FRAME	(HDR + sizeof(struct encd_wire_challenge))
#define PROOF_FRAME	(HDR + sizeof(struct encd_wire_proof))
#define WELCOME_FRAME	FRAME(0)
#define DIGEST_FRAME	FRAME(sizeof(struct encd_wire_digest))
#define LINK_FRAME	FRAME(sizeof(struct encd_wire_link))
#define JOIN_FRAME	FRAME(sizeof(struct encd_wire_join))
#define ADDR_ENTRY	64	/* NCCL's and TCPStore's address entry */

struct params {
	u32 per_host;
	double rtt, bw;		/* seconds; bytes per second */
	double c, l;		/* per message: across hosts, within one */
};

/* A data link (from, to): when it can carry its first frame. */
struct link {
	u32 from, to;
	double ready;
};

struct links {
	struct link *t;
	size_t cap;
};

static u64 link_hash(u32 from, u32 to)
{
	u64 x = ((u64)from << 32 | to) * 0x9e3779b97f4a7c15ULL;

	return x ^ (x >> 29);
}

/* The link, made (ready = -1: not opened yet) when it is new. */
static struct link *link_get(struct links *ls, u32 from, u32 to, bool *fresh)
{
	size_t i = link_hash(from, to) & (ls->cap - 1);

	while (ls->t[i].ready != 0) {
		if (ls->t[i].from == from && ls->t[i].to == to) {
			*fresh = false;
			return &ls->t[i];
		}
		i = (i + 1) & (ls->cap - 1);
	}
	ls->t[i] = (struct link){ from, to, -1 };
	*fresh = true;
	return &ls->t[i];
}

struct encd_result {
	double t_rendezvous, t_table, t_validate, t_broadcast, t_total;
	u64 root_bytes, host_max, host_sum;
	u32 rounds, links;
};

struct model {
	const struct params *p;
	u32 n, h;
	u64 *sent;		/* per host */
	struct links ls;
	u32 n_links;
};

static u32 host_of(const struct model *m, u32 rank)
{
	return rank / m->p->per_host;
}

/*
 * A message of @bytes from @src_host at time @t to @dst_host: when it has
 * been taken in there. A data link is opened on its first message.
 */
static double deliver(struct model *m, u32 src_host, u32 dst_host, double t, u64 bytes)
{
	const struct params *p = m->p;
	struct link *l;
	bool fresh;

	if (src_host == dst_host)
		return t + p->l;
	l = link_get(&m->ls, src_host, dst_host, &fresh);
	if (fresh) {
		/* TCP connect, HELLO/CHALLENGE, PROOF/WELCOME; LINK goes with the frame. */
		l->ready = t + 3 * p->rtt;
		m->sent[src_host] += HELLO_FRAME + PROOF_FRAME + LINK_FRAME;
		m->sent[dst_host] += CHALLENGE_FRAME + WELCOME_FRAME;
		m->n_links++;
	}
	m->sent[src_host] += bytes;
	return (t > l->ready ? t : l->ready) + p->rtt / 2 + bytes / p->bw + p->c;
}

static int model_encd(const struct params *p, u32 n, struct encd_result *res)
{
	struct model m = { .p = p, .n = n, .h = (n + p->per_host - 1) / p->per_host };
	u64 table = FRAME(encd_wire_table_len(n, m.h));
	double *t_host, *t_ready, *t_uid, t_root, end = 0, vdone = 0, bdone = 0;
	u32 r, i, hh, slots;
	int err = -ENOMEM;

	memset(res, 0, sizeof(*res));
	m.sent = calloc(m.h, sizeof(*m.sent));
	t_host = calloc(m.h, sizeof(*t_host));
	t_ready = calloc(n, sizeof(*t_ready));
	t_uid = calloc(n, sizeof(*t_uid));
	/* Host tree, rank tree, hypercube and ring links: fewer than 8 per host. */
	for (m.ls.cap = 1; m.ls.cap < 16 * (size_t)m.h + 64; m.ls.cap <<= 1)
		;
	m.ls.t = calloc(m.ls.cap, sizeof(*m.ls.t));
	if (!m.sent || !t_host || !t_ready || !t_uid || !m.ls.t)
		goto out;

	/*
	 * Rendezvous: every other host connects to the root and sends JOIN
	 * and one REGISTER; the root answers each handshake. It serves at
	 * most ENCD_PENDING_MAX handshakes at a time, each for about 1.5 RTT,
	 * and spends C on each of a host's three frames.
	 */
	for (hh = 1; hh < m.h; hh++) {
		u32 ranks = n - hh * p->per_host < p->per_host ? n - hh * p->per_host : p->per_host;
		u32 batches = (ranks + ENCD_REGISTER_MAX - 1) / ENCD_REGISTER_MAX;

		m.sent[hh] += HELLO_FRAME + PROOF_FRAME + JOIN_FRAME + batches * FRAME(4) +
			      ranks * sizeof(struct encd_wire_rank);
		m.sent[0] += CHALLENGE_FRAME + WELCOME_FRAME;
		/* The table's digest to each host whose parent is not the root. */
		if (encd_tree_parent(hh) != 0)
			m.sent[0] += DIGEST_FRAME;
	}
	slots = (m.h - 1 + ENCD_PENDING_MAX - 1) / ENCD_PENDING_MAX;
	/* One host alone has nobody to wait for: its ranks register in the module. */
	t_root = m.h > 1 ? 3.5 * p->rtt + fmax(3.0 * (m.h - 1) * p->c, slots * 1.5 * p->rtt) : 0;
	res->t_rendezvous = t_root;

	/* The table down the host tree: each host sends it to its two children. */
	t_host[0] = t_root;
	for (hh = 0; hh < m.h; hh++) {
		/* One after the other: the second child's starts when the first's is out. */
		for (i = 0; i < 2; i++) {
			u32 c = encd_tree_child(hh, m.h, i);
			double start = t_host[hh] + i * (table / p->bw);

			if (c == m.h)
				continue;
			if (hh == 0) {	/* on the control link */
				m.sent[0] += table;
				t_host[c] = start + table / p->bw + p->rtt / 2 + p->c;
			} else {
				t_host[c] = deliver(&m, hh, c, start, table);
			}
		}
		if (t_host[hh] > res->t_table)
			res->t_table = t_host[hh];
	}

	/*
	 * Validation up the rank tree: a rank sends once its children's
	 * signatures are in (children have larger ranks: go downwards).
	 */
	for (r = n; r-- > 0;) {
		double t = t_host[host_of(&m, r)];

		for (i = 0; i < 2; i++) {
			u32 c = encd_tree_child(r, n, i);

			if (c < n && t_ready[c] > t)
				t = t_ready[c];
		}
		if (r) {
			u32 par = encd_tree_parent(r);

			t_ready[r] = deliver(&m, host_of(&m, r), host_of(&m, par), t,
					     host_of(&m, r) == host_of(&m, par) ? 0 : SIG_FRAME);
		} else {
			vdone = t;
		}
	}
	/* The unique id and the verdict down the hypercube, largest step first. */
	t_uid[0] = vdone;
	for (r = 0; r < n; r++) {
		u64 step = encd_cube_mask(r, n) >> 1;
		double t = t_uid[r];
		u32 k = 0;

		for (; step; step >>= 1) {
			u32 d = (u32)(r + step);

			if (!encd_cube_send_ok(r, n, step))
				continue;
			k++;
			t_uid[d] = deliver(&m, host_of(&m, r), host_of(&m, d), t + k * p->l,
					   host_of(&m, r) == host_of(&m, d) ? 0 : UID_FRAME);
		}
		if (t_uid[r] > bdone)
			bdone = t_uid[r];
	}
	/* Comm init: the unique id to the ring successor; then the local barrier. */
	for (r = 0; r < n && n > 1; r++) {
		u32 d = (r + 1) % n;
		double t = deliver(&m, host_of(&m, r), host_of(&m, d), t_uid[r],
				   host_of(&m, r) == host_of(&m, d) ? 0 : RING_FRAME);

		t = fmax(t, t_uid[d]) + p->l;
		if (t > end)
			end = t;
	}
	res->t_validate = vdone;
	res->t_broadcast = bdone;
	res->t_total = fmax(end, bdone);
	res->root_bytes = m.sent[0];
	for (hh = 1; hh < m.h; hh++) {
		res->host_sum += m.sent[hh];
		if (m.sent[hh] > res->host_max)
			res->host_max = m.sent[hh];
	}
	/* Rendezvous, the host tree's depth, up the rank tree, down the cube, ring. */
	res->rounds = 1 + encd_ceil_log2(m.h + 1) - 1 + encd_ceil_log2(n + 1) - 1 +
		      encd_ceil_log2(n) + 1;
	res->links = m.n_links;
	err = 0;
out:
	free(m.sent);
	free(t_host);
	free(t_ready);
	free(t_uid);
	free(m.ls.t);
	return err;
}

/*
 * A job's end as encd ends it: each host's ranks leave within one batch, so
 * its news is one block (its head, the END_NEWS hosts it has data links
 * to, one run: its ranks are consecutive and completed the same, having
 * formed one comm) up to the root, and down the host tree. The root sends
 * each of its two children every block but the child's own. At worst each
 * block is a DEPART of its own (they reach the root in different batches);
 * at best those of one batch share frames of ENCD_WIRE_DEPART_MAX bytes.
 * Each hop down the tree adds a batch and half a round trip.
 */
#define END_NEWS	8
#define END_BLOCK	(sizeof(struct encd_wire_depart_block) + END_NEWS * sizeof(u32) + \
			 sizeof(struct encd_wire_depart_run) + sizeof(struct encd_wire_departed_comm))

struct end_result {
	double root_bytes, frames, frames_batched, t;
};

static void model_encd_end(const struct params *p, u32 n, struct end_result *e)
{
	double h = ceil((double)n / p->per_host), kids = h > 2 ? 2 : h - 1;
	double per_kid = h - 1;		/* the root's block and the others', not its own */

	e->frames = kids * per_kid;
	e->frames_batched = kids * ceil(per_kid * END_BLOCK / ENCD_WIRE_DEPART_MAX);
	e->root_bytes = e->frames * FRAME(END_BLOCK);
	e->t = ceil(log2(h > 1 ? h : 2)) * (ENCD_NEWS_BATCH_MS / 1e3 + p->rtt / 2 + p->c) +
	       e->frames * p->c + e->root_bytes / p->bw;
}

/*
 * NCCL's end (ncclCommDestroy) closes each rank's own connections: nothing
 * goes through a root. A TCPStore-style end is a barrier at the store:
 * every rank adds to a counter (N requests), then waits for it to reach N
 * (N answers), A bytes each way.
 */
static double star_end_time(const struct params *p, double n)
{
	return 2 * p->rtt + 2 * n * p->c + n * ADDR_ENTRY / p->bw;
}

static double nccl_time(const struct params *p, double n)
{
	return 2 * p->rtt + n * p->c + n / 2 * (p->rtt / 2 + p->c + ADDR_ENTRY / p->bw);
}

static double star_time(const struct params *p, double n)
{
	return 2 * p->rtt + 2 * n * p->c + n * n * ADDR_ENTRY / p->bw;
}

static void human(char *buf, size_t len, double x)
{
	static const char *const unit[] = { "", "K", "M", "G", "T", "P" };
	unsigned int u = 0;

	while (x >= 1000 && u < 5) {
		x /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.3g%s" : "%.0f%s", x, unit[u]);
}

static void seconds(char *buf, size_t len, double s)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.0fus", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.1fms", s * 1e3);
	else if (s < 3600)
		snprintf(buf, len, "%.2fs", s);
	else
		snprintf(buf, len, "%.1fh", s / 3600);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: scale-model [--ranks-per-host P] [--rtt-us R] [--gbps B] "
		"[--per-msg-us C]\n"
		"                   [--local-us L] [--calibrate C_US,L_US] [--sizes N,N,...]\n");
}

static int parse_num(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out >= lo && *out <= hi)) {
		fprintf(stderr, "scale-model: %s wants a number from %g to %g, not '%s'\n",
			opt, lo, hi, s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ranks-per-host", required_argument, NULL, 'p' },
		{ "rtt-us", required_argument, NULL, 'r' },
		{ "gbps", required_argument, NULL, 'b' },
		{ "per-msg-us", required_argument, NULL, 'c' },
		{ "local-us", required_argument, NULL, 'l' },
		{ "calibrate", required_argument, NULL, 'k' },
		{ "sizes", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const u32 default_sizes[] = { 32, 256, 1024, 16384, 100000, 1000000 };
	double per = 32, rtt = 25, gbps = 10, c = 5, l = 1, kc = -1, kl = -1, x;
	u32 sizes[64], n_sizes = 0, i;
	struct params nom, cal;
	struct encd_result rc_goal;
	char *tok, *save, *comma;
	int o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			if (parse_num("--ranks-per-host", optarg, 1, 4096, &per))
				return 2;
			break;
		case 'r':
			if (parse_num("--rtt-us", optarg, 0.1, 1e6, &rtt))
				return 2;
			break;
		case 'b':
			if (parse_num("--gbps", optarg, 0.001, 1e4, &gbps))
				return 2;
			break;
		case 'c':
			if (parse_num("--per-msg-us", optarg, 0, 1e6, &c))
				return 2;
			break;
		case 'l':
			if (parse_num("--local-us", optarg, 0, 1e6, &l))
				return 2;
			break;
		case 'k':
			comma = strchr(optarg, ',');
			if (!comma) {
				fprintf(stderr, "scale-model: --calibrate wants C_US,L_US, not '%s'\n",
					optarg);
				return 2;
			}
			*comma = 0;
			if (parse_num("--calibrate C_US", optarg, 0, 1e6, &kc) ||
			    parse_num("--calibrate L_US", comma + 1, 0, 1e6, &kl))
				return 2;
			break;
		case 's':
			for (tok = strtok_r(optarg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (n_sizes == 64) {
					fprintf(stderr, "scale-model: at most 64 sizes\n");
					return 2;
				}
				if (parse_num("--sizes", tok, 1, 4e9, &x))
					return 2;
				sizes[n_sizes++] = (u32)x;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "scale-model: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!n_sizes) {
		memcpy(sizes, default_sizes, sizeof(default_sizes));
		n_sizes = sizeof(default_sizes) / sizeof(default_sizes[0]);
	}
	nom = (struct params){ (u32)per, rtt * 1e-6, gbps * 1e9 / 8, c * 1e-6, l * 1e-6 };
	cal = nom;
	if (kc >= 0) {
		cal.c = kc * 1e-6;
		cal.l = kl * 1e-6;
	}

	printf("scale model: %u ranks per host, RTT %g us, %g Gb/s; per message %g us across "
	       "hosts, %g us within one (nominal)", nom.per_host, rtt, gbps, c, l);
	if (kc >= 0)
		printf("; calibrated in the VM: %g us, %g us", kc, kl);
	printf("\nencd: bytes exact from the schedule and frame sizes; rounds = rendezvous + "
	       "host-tree depth + rank-tree depth + cube + ring\n");
	printf("NCCL ring: N/2 + 2 rounds, the root sends N addresses; star (TCPStore-style): "
	       "2 rounds, the root sends N^2 entries; %d-byte entries\n", ADDR_ENTRY);
	printf("%9s %6s | %6s %9s %7s %9s %9s %9s %9s | %7s %9s %9s | %9s %9s\n",
	       "N", "hosts", "rounds", "root B", "root/N", "host B", "t nominal",
	       kc >= 0 ? "t calib" : "", "table", "rounds", "root B", "t", "root B", "t");
	printf("%9s %6s | %67s | %27s | %19s\n", "", "", "encd (host-aware)", "NCCL ring bootstrap",
	       "TCPStore-style star");
	for (i = 0; i < n_sizes; i++) {
		struct encd_result rn, rc;
		char b1[16], b2[16], b3[16], b4[16], b5[16], b6[16], b7[16], b8[16], b9[16];
		u32 n = sizes[i];
		double nccl_root = (double)n * ADDR_ENTRY, star_root = (double)n * n * ADDR_ENTRY;

		if (model_encd(&nom, n, &rn) || (kc >= 0 && model_encd(&cal, n, &rc))) {
			fprintf(stderr, "scale-model: out of memory at N = %u\n", n);
			return 1;
		}
		human(b1, sizeof(b1), rn.root_bytes);
		human(b2, sizeof(b2), rn.host_max);
		seconds(b3, sizeof(b3), rn.t_total);
		if (kc >= 0)
			seconds(b4, sizeof(b4), rc.t_total);
		else
			b4[0] = 0;
		human(b5, sizeof(b5), FRAME(encd_wire_table_len(n, (n + nom.per_host - 1) /
								 nom.per_host)));
		human(b6, sizeof(b6), nccl_root);
		seconds(b7, sizeof(b7), nccl_time(&nom, n));
		human(b8, sizeof(b8), star_root);
		seconds(b9, sizeof(b9), star_time(&nom, n));
		printf("%9u%s %6u | %6u %9s %7.1f %9s %9s %9s %9s | %7.0f %9s %9s | %9s %9s\n",
		       n, n > ENCD_WORLD_MAX ? "*" : " ", (n + nom.per_host - 1) / nom.per_host,
		       rn.rounds, b1, (double)rn.root_bytes / n, b2, b3, b4, b5,
		       ceil(n / 2.0) + 2, b6, b7, b8, b9);
	}
	/* Where encd's time goes: each figure is when that step ended. */
	printf("\nencd, nominal: when each step ended (the root has every host; the last host "
	       "has the table; validation; broadcast; formed)\n");
	printf("%9s | %10s %10s %10s %10s %10s | %7s\n", "N", "rendezvous", "table", "validate",
	       "broadcast", "formed", "links");
	for (i = 0; i < n_sizes; i++) {
		struct encd_result r;
		char b[5][16];

		if (model_encd(&nom, sizes[i], &r)) {
			fprintf(stderr, "scale-model: out of memory at N = %u\n", sizes[i]);
			return 1;
		}
		seconds(b[0], sizeof(b[0]), r.t_rendezvous);
		seconds(b[1], sizeof(b[1]), r.t_table);
		seconds(b[2], sizeof(b[2]), r.t_validate);
		seconds(b[3], sizeof(b[3]), r.t_broadcast);
		seconds(b[4], sizeof(b[4]), r.t_total);
		printf("%9u | %10s %10s %10s %10s %10s | %7u\n", sizes[i], b[0], b[1], b[2], b[3],
		       b[4], r.links);
	}

	/* A job's end: every rank leaves its formed world. */
	printf("\na job's end, every rank leaving its formed world (nominal): the root sends its "
	       "two children each host's block of %d bytes, in a DEPART of its own at worst "
	       "(frames), sharing DEPARTs within a batch at best (batched)\n", (int)END_BLOCK);
	printf("%9s %6s | %9s %9s %9s %9s %9s %9s | %9s | %9s %9s\n", "N", "hosts", "formed B",
	       "end B", "end/form", "frames", "batched", "t", "NCCL B", "star B", "star t");
	for (i = 0; i < n_sizes; i++) {
		struct encd_result r;
		struct end_result e;
		char b[8][16];
		u32 n = sizes[i];

		if (model_encd(&nom, n, &r)) {
			fprintf(stderr, "scale-model: out of memory at N = %u\n", n);
			return 1;
		}
		model_encd_end(&nom, n, &e);
		human(b[7], sizeof(b[7]), e.frames_batched);
		human(b[0], sizeof(b[0]), r.root_bytes);
		human(b[1], sizeof(b[1]), e.root_bytes);
		human(b[2], sizeof(b[2]), e.frames);
		seconds(b[3], sizeof(b[3]), e.t);
		human(b[4], sizeof(b[4]), (double)n * ADDR_ENTRY);
		seconds(b[5], sizeof(b[5]), star_end_time(&nom, n));
		if (r.root_bytes)
			snprintf(b[6], sizeof(b[6]), "%.2fx", e.root_bytes / r.root_bytes);
		else
			snprintf(b[6], sizeof(b[6]), "-");
		printf("%9u%s %6u | %9s %9s %9s %9s %9s %9s | %9s | %9s %9s\n", n,
		       n > ENCD_WORLD_MAX ? "*" : " ", (n + nom.per_host - 1) / nom.per_host, b[0], b[1],
		       b[6], b[2], b[7], b[3], "0", b[4], b[5]);
	}

	/* The goals, at these parameters. */
	{
		struct encd_result g, lo, hi;

		if (model_encd(&nom, 100000, &g) || model_encd(&nom, 1024, &lo) ||
		    model_encd(&nom, 1000000, &hi) || (kc >= 0 && model_encd(&cal, 100000, &rc_goal))) {
			fprintf(stderr, "scale-model: out of memory\n");
			return 1;
		}
		printf("goal: formation of 100,000 ranks under 5 s: %.3f s nominal%s", g.t_total,
		       kc >= 0 ? "," : "");
		if (kc >= 0)
			printf(" %.3f s calibrated", rc_goal.t_total);
		printf("; root bytes O(N): %.1f bytes per rank at 1,024, %.1f at 1,000,000\n",
		       (double)lo.root_bytes / 1024, (double)hi.root_bytes / 1000000);
	}
	printf("* above ENCD_WORLD_MAX (%u): the module refuses such a world; the protocol is "
	       "modelled as if it did not.\n", ENCD_WORLD_MAX);
	return 0;
}
