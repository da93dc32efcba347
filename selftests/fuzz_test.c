// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer of everything encd takes from user space, for a fixed number of
 * calls, from several processes at once: ioctls on /dev/encd (encd's real
 * numbers with fields drawn from values that reach deep, sizes right and
 * wrong, bad pointers, and other numbers of encd's type), mmaps of any
 * offset with any protection, closes and reopens of the device, and
 * messages to the "encd" generic netlink family (its real id, any command,
 * flags and attributes). The processes share core numbers and root
 * addresses, so their comms collide and their worlds of two form across
 * processes; a timer signal every few milliseconds ends any wait.
 *
 * What it checks itself, besides the kernel staying up: a number of encd's
 * type that is not one of its ioctls is ENOTTY, an encd ioctl fails only
 * with an errno the uapi names, VERSION answers what the uapi says, a
 * writable mapping is refused and a readable one holds the semaphore
 * values, and every netlink answer is well formed. After the processes
 * exit, no comm is left. The runner then finds no kernel report in the log
 * and no leak (debug lane), and unloads the module.
 *
 * How many calls: $ENCD_FUZZ_CALLS, else by lane ($ENCD_LANE, which the
 * runner sets to the lane's build name): FUZZ_CALLS_DEBUG in the debug lane,
 * FUZZ_CALLS_SHORT elsewhere. Under TCG the debug kernel (KASAN, lockdep,
 * kmemleak) makes some 4,400 calls a second: half a million take two
 * minutes of the lane's time, and a million (ENCD_FUZZ_CALLS, for a longer
 * run) four, within the limit of selftests/fuzz_test.settings.
 * $ENCD_FUZZ_SEED replays a run (each run prints its seed), $ENCD_FUZZ_PROCS
 * sets the processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <enc/json.h>
#include <enc/program.h>

#include "kselftest.h"
#include "encd_genl.h"

#define FUZZ_CALLS_DEBUG	500000UL
#define FUZZ_CALLS_SHORT	50000UL
#define FUZZ_PROCS		4
#define FDS			3
#define MAPS			16
#define TICK_US			5000	/* the timer that ends waits */
#define VNCS			8	/* the cores most calls name */
#define MSG_LEN			256	/* the sentence buffer the calls mostly give */

#define N_IOCTLS	13

struct stats {
	unsigned long calls, ioctls, ioctl_ok, genl, mmaps, mmap_ok, closes;
	unsigned long ok_by[N_IOCTLS];	/* successes of each of encd's ioctls */
	int failed;			/* a check failed */
};

/* xorshift64*: fast, and a seed replays a process's calls exactly. */
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(int percent)
{
	return below(100) < (uint32_t)percent;
}

/* One of @n values. */
#define pick(...)							\
	({								\
		const uint64_t __v[] = { __VA_ARGS__ };			\
		__v[below(sizeof(__v) / sizeof(__v[0]))];		\
	})

/* Memory a process hands the kernel: every buffer ends at a guard page. */
static size_t page;
static char *args;		/* 2 pages for ioctl arguments, then a guard */
static char *msgbuf;		/* the failure sentences */
static char *outs;		/* 1 page for the signatures GET_SIGNATURES writes */
static char *progs;		/* programs, 16 pages */
static char *guard;		/* a page nobody may touch */

#define PROGS_SIZE	(16 * page)

/* Programs that load on worlds of 1 and 2 ranks, encoded once. */
static const char *const prog_json[] = {
	"{\"replica_groups\": [{\"group_id\": 0, \"rank\": 0, \"rank_n\": 1,"
	" \"participants\": [0]}, {\"group_id\": 1, \"rank\": 0, \"rank_n\": 1,"
	" \"participants\": [0], \"stream_id\": 1}],"
	" \"ops\": [{\"op\": \"all_reduce\", \"size_n\": 64, \"group\": 0}]}",
	"{\"replica_groups\": [{\"group_id\": 0, \"rank\": 0, \"rank_n\": 2,"
	" \"participants\": [0, 1]}],"
	" \"ops\": [{\"op\": \"all_gather\", \"size_n\": 8, \"group\": 0}]}",
	"{\"replica_groups\": [{\"group_id\": 3, \"rank\": 1, \"rank_n\": 2,"
	" \"participants\": [0, 1], \"stream_id\": 2}],"
	" \"ops\": [{\"op\": \"reduce_scatter\", \"size_n\": 8, \"group\": 3}]}",
};
#define N_PROGS	(sizeof(prog_json) / sizeof(prog_json[0]))
static void *prog_blob[N_PROGS];
static size_t prog_len[N_PROGS];

static const char *const roots[] = {
	"", "127.0.0.1:61000", "127.0.0.1:61001", "localhost:61002", "[::1]:61003",
	"127.0.0.1:0", "nohost:61000", "127.0.0.1", "10.255.255.1:61000", "[::1]",
};

/* A user pointer the kernel must refuse to touch. */
static uint64_t bad_ptr(void)
{
	return pick(0, (uintptr_t)guard, (uintptr_t)guard + page - 1, 0xffffffff81000000ULL,
		    0xffffffffffffffffULL, 1, (uintptr_t)guard + below(page));
}

static uint32_t r_vnc(void)
{
	return chance(85) ? below(VNCS) : pick(31, 32, 255, 256, 4096, UINT32_MAX, rnd());
}

static uint32_t r_ctx(void)
{
	return chance(90) ? below(ENCD_MAX_CONTEXTS) : pick(2, 3, UINT32_MAX, rnd());
}

static uint32_t r_cnt(void)
{
	return pick(1, 1, 1, 2, 2, 3, 4, 0, 16384, 1048576, 1048577, UINT32_MAX, rnd());
}

static uint32_t r_below(uint32_t n)
{
	return chance(85) && n ? below(n) : pick(n, n + 1, UINT32_MAX, rnd());
}

static uint32_t r_timeout(void)
{
	return pick(0, 1, 2, 5, 20, 50, 100, 1000, 60000, UINT32_MAX, rnd());
}

static uint32_t r_group(void)
{
	return chance(40) ? ENCD_GROUP_GLOBAL : chance(85) ? below(ENCD_MAX_COMM_N + 1) : rnd();
}

static uint32_t r_flags(uint32_t valid)
{
	if (chance(80))
		return rnd() & valid;
	return pick(1U << 31, 0xffffffff, rnd(), valid + 1);
}

static void r_bytes(void *p, size_t n)
{
	unsigned char *b = p;

	while (n--)
		*b++ = rnd();
}

static void r_root(char *dst)
{
	size_t i;

	if (chance(90)) {
		snprintf(dst, ENCD_ROOT_COMM_ID_MAX, "%s", roots[below(sizeof(roots) / sizeof(roots[0]))]);
		return;
	}
	/* Printable, NUL-terminated or not. */
	for (i = 0; i < ENCD_ROOT_COMM_ID_MAX; i++)
		dst[i] = 0x20 + below(0x5f);
	if (chance(50))
		dst[below(ENCD_ROOT_COMM_ID_MAX)] = '\0';
}

/* A program: a real one, one with a few bytes changed, or cut short; in progs. */
static uint64_t r_prog(uint32_t *len)
{
	unsigned int i = below(N_PROGS), n;
	char *at = progs;

	memcpy(at, prog_blob[i], prog_len[i]);
	*len = prog_len[i];
	if (chance(30))
		for (n = 1 + below(4); n; n--)
			at[below(prog_len[i])] = rnd();
	if (chance(10))
		*len = below(prog_len[i] + 64);
	if (chance(5))
		*len = pick(PROGS_SIZE, PROGS_SIZE + 1, ENCD_PROG_MAX_SIZE + 1, rnd());
	/* The largest the kernel takes: it allocates it, then finds the guard. */
	if (chance(1))
		*len = ENCD_PROG_MAX_SIZE;
	/* The program may end at the guard: a length past it is EFAULT. */
	if (chance(20) && *len <= PROGS_SIZE) {
		memmove(progs + PROGS_SIZE - *len, at, *len);
		return (uintptr_t)(progs + PROGS_SIZE - *len);
	}
	return chance(95) ? (uintptr_t)at : bad_ptr();
}

/* encd's ioctls, by number, with the size of their struct. */
static const struct {
	unsigned long nr;
	size_t size;
	const char *name;
} ioctls[N_IOCTLS] = {
	{ ENCD_IOC_VERSION, sizeof(struct encd_version), "VERSION" },
	{ ENCD_IOC_BUILD_GLOBAL_COMM, sizeof(struct encd_global_comm_req), "BUILD" },
	{ ENCD_IOC_VALIDATE_GLOBAL_COMM, sizeof(struct encd_global_comm_req), "VALIDATE" },
	{ ENCD_IOC_GET_GLOBAL_COMM, sizeof(struct encd_get_global_comm), "GET" },
	{ ENCD_IOC_RELEASE_GLOBAL_COMM, sizeof(struct encd_release_global_comm), "RELEASE" },
	{ ENCD_IOC_PROGRAM_LOAD, sizeof(struct encd_program_load), "PROGRAM_LOAD" },
	{ ENCD_IOC_PROGRAM_SIGN, sizeof(struct encd_program_sign), "PROGRAM_SIGN" },
	{ ENCD_IOC_PROGRAM_GET_SIGNATURES, sizeof(struct encd_program_get_signatures),
	  "PROGRAM_GET_SIGNATURES" },
	{ ENCD_IOC_PROGRAM_SEAL, sizeof(struct encd_program_seal), "PROGRAM_SEAL" },
	{ ENCD_IOC_SETUP_GLOBAL_COMM, sizeof(struct encd_setup_global_comm), "SETUP" },
	{ ENCD_IOC_INIT_REPLICA_GROUPS, sizeof(struct encd_init_replica_groups),
	  "INIT_REPLICA_GROUPS" },
	{ ENCD_IOC_COMM_BARRIER, sizeof(struct encd_comm_barrier), "COMM_BARRIER" },
	{ ENCD_IOC_NODE_INFO, sizeof(struct encd_node_info), "NODE_INFO" },
};

/* The fields of ioctl @i, drawn; the head is filled in by the caller. */
static void fill(unsigned int i, void *arg)
{
	union {
		struct encd_global_comm_req gc;
		struct encd_get_global_comm get;
		struct encd_release_global_comm rel;
		struct encd_program_load pl;
		struct encd_program_sign ps;
		struct encd_program_get_signatures pg;
		struct encd_program_seal seal;
		struct encd_setup_global_comm s;
		struct encd_init_replica_groups ig;
		struct encd_comm_barrier b;
		struct encd_node_info ni;
	} *u = arg;
	uint32_t room;

	switch (ioctls[i].nr) {
	case ENCD_IOC_BUILD_GLOBAL_COMM:
	case ENCD_IOC_VALIDATE_GLOBAL_COMM:
		u->gc.vnc = r_vnc();
		u->gc.g_device_cnt = r_cnt();
		u->gc.g_device_id = r_below(u->gc.g_device_cnt);
		u->gc.ctx_id = r_ctx();
		r_root(u->gc.root_comm_id);
		break;
	case ENCD_IOC_GET_GLOBAL_COMM:
		u->get.vnc = r_vnc();
		u->get.ctx_id = r_ctx();
		break;
	case ENCD_IOC_RELEASE_GLOBAL_COMM:
		u->rel.vnc = r_vnc();
		u->rel.ctx_id = r_ctx();
		break;
	case ENCD_IOC_PROGRAM_LOAD:
		u->pl.vnc = r_vnc();
		u->pl.ctx_id = r_ctx();
		u->pl.prog_uptr = r_prog(&u->pl.prog_len);
		break;
	case ENCD_IOC_PROGRAM_SIGN:
		u->ps.vnc = r_vnc();
		u->ps.ctx_id = r_ctx();
		break;
	case ENCD_IOC_PROGRAM_GET_SIGNATURES:
		u->pg.vnc = r_vnc();
		u->pg.ctx_id = r_ctx();
		/* Room for what fits before the guard page, or a bad pointer. */
		room = page / sizeof(struct encd_prog_sig);
		u->pg.n_groups = below(room + 1);
		u->pg.n_stps = below(room + 1);
		u->pg.groups_uptr = chance(90) ? (uintptr_t)(outs + page -
				    u->pg.n_groups * sizeof(struct encd_prog_sig)) : bad_ptr();
		u->pg.stps_uptr = chance(90) ? (uintptr_t)(outs + page -
				  u->pg.n_stps * sizeof(struct encd_prog_sig)) : bad_ptr();
		/* The two may overlap: the kernel writes both, into one page. */
		break;
	case ENCD_IOC_PROGRAM_SEAL:
		u->seal.vnc = r_vnc();
		u->seal.ctx_id = r_ctx();
		break;
	case ENCD_IOC_SETUP_GLOBAL_COMM:
		u->s.vnc = r_vnc();
		u->s.ctx_id = r_ctx();
		u->s.timeout_ms = r_timeout();
		if (chance(10)) {
			u->s.secret_len = chance(80) ? 1 + below(ENCD_WORLD_SECRET_MAX) : rnd();
			u->s.secret_uptr = chance(90) ? (uintptr_t)(outs + page - 80) : bad_ptr();
		}
		break;
	case ENCD_IOC_INIT_REPLICA_GROUPS:
		u->ig.vnc = r_vnc();
		u->ig.ctx_id = r_ctx();
		u->ig.timeout_ms = r_timeout();
		break;
	case ENCD_IOC_COMM_BARRIER:
		u->b.vnc = r_vnc();
		u->b.ctx_id = r_ctx();
		u->b.group_id = r_group();
		u->b.timeout_ms = r_timeout();
		break;
	case ENCD_IOC_NODE_INFO:
		u->ni.vnc = r_vnc();
		u->ni.ctx_id = r_ctx();
		u->ni.group_id = r_group();
		break;
	}
	/* Now and then, anything at all in the fields after the head. */
	if (chance(3))
		r_bytes((char *)arg + sizeof(struct encd_head),
			ioctls[i].size - sizeof(struct encd_head));
}

/* The head.flags each ioctl knows. */
static uint32_t valid_flags(unsigned long nr)
{
	switch (nr) {
	case ENCD_IOC_BUILD_GLOBAL_COMM:
	case ENCD_IOC_VALIDATE_GLOBAL_COMM:
		return ENCD_GCOMM_CHECK_SIGS;
	case ENCD_IOC_PROGRAM_SIGN:
		return ENCD_SIG_ALL_GROUPS;
	case ENCD_IOC_SETUP_GLOBAL_COMM:
		return ENCD_SETUP_FORCE_TCP | ENCD_SETUP_SIG_ALL_GROUPS;
	case ENCD_IOC_COMM_BARRIER:
		return ENCD_BARRIER_LOCAL;
	default:
		return 0;
	}
}

/* What an encd ioctl may fail with (the uapi's errors). */
static bool uapi_errno(int err)
{
	switch (err) {
	case EINVAL: case E2BIG: case EOPNOTSUPP: case EFAULT: case ENOENT: case ENODEV:
	case EBUSY: case ENOMEM: case ETIMEDOUT: case EINTR: case ECONNABORTED:
	case ECONNRESET: case ECONNREFUSED: case EPROTO: case EMSGSIZE: case EBADE:
	case EACCES: case EADDRINUSE: case EADDRNOTAVAIL: case ENETUNREACH: case EHOSTUNREACH:
	case EAFNOSUPPORT: case EPIPE:
		return true;
	default:
		return false;
	}
}

#define fail(st, ...)							\
	do {								\
		ksft_print_msg(__VA_ARGS__);				\
		(st)->failed = 1;					\
	} while (0)

static void do_ioctl(struct stats *st, int fd)
{
	unsigned int i = below(N_IOCTLS);
	unsigned long nr = ioctls[i].nr;
	size_t size = ioctls[i].size, room = 2 * page;
	struct encd_head *h = NULL;
	bool encd_nr = true;
	char *at = args;
	uint64_t arg;
	unsigned int k;
	int ret, err;

	if (chance(9)) {
		/* Another number: of encd's type (any direction, size bits, nr), or any. */
		nr = chance(90) ? _IOC(below(4), ENCD_TYPE,
				       below(2) ? ENCD_CMD_BASE + below(20) : below(256),
				       below(2) ? 0 : below(1 << 14)) : (uint32_t)rnd();
		encd_nr = false;
		for (k = 0; k < N_IOCTLS; k++)
			encd_nr |= ioctls[k].nr == nr;
	}
	if (chance(99)) {
		/* Right before the guard now and then: a size too big reads into it. */
		if (chance(20))
			at = args + room - size;
		memset(at, 0, size);
		fill(i, at);
		h = (struct encd_head *)at;
		h->size = chance(75) ? size : pick(0, 4, sizeof(*h), size - 4, size + 4,
						   size + 64, page, UINT32_MAX, rnd());
		if (h->size > size && h->size <= room - (at - args) && chance(50))
			r_bytes(at + size, h->size - size);
		else if (h->size > size && h->size <= room - (at - args))
			memset(at + size, 0, h->size - size);
		h->flags = r_flags(valid_flags(ioctls[i].nr));
		h->msg_uptr = chance(85) ? (uintptr_t)msgbuf : bad_ptr();
		h->msg_len = pick(MSG_LEN, MSG_LEN, 0, 1, 2, 17, below(MSG_LEN));
		h->reason = chance(50) ? 0 : rnd();
	} else {
		r_bytes(at, size);
	}
	arg = chance(95) ? (uintptr_t)at : bad_ptr();

	ret = ioctl(fd, nr, (unsigned long)arg);
	err = ret < 0 ? errno : 0;
	st->ioctls++;
	for (k = 0; !ret && k < N_IOCTLS; k++)
		if (ioctls[k].nr == nr)
			st->ok_by[k]++;
	if (!ret)
		st->ioctl_ok++;
	if (ret > 0)
		fail(st, "ioctl 0x%lx returned %d\n", nr, ret);
	if (_IOC_TYPE(nr) == ENCD_TYPE && !encd_nr && err != ENOTTY)
		fail(st, "ioctl 0x%lx, not one of encd's: %s, not ENOTTY\n", nr, strerror(err));
	if (encd_nr && ret < 0 && !uapi_errno(err))
		fail(st, "ioctl 0x%lx: %s, an errno the uapi does not name\n", nr, strerror(err));
	if (!ret && nr == ENCD_IOC_VERSION && arg == (uintptr_t)at && h && h->size >= size) {
		struct encd_version *v = (struct encd_version *)at;

		if (v->api_version != ENCD_API_VERSION || v->max_contexts != ENCD_MAX_CONTEXTS ||
		    v->sem_values_size != ENCD_SEM_VALUES_SIZE)
			fail(st, "VERSION: api %u, contexts %u, values %u\n", v->api_version,
			     v->max_contexts, v->sem_values_size);
	}
}

struct map {
	void *at;
	size_t len;
};

static void do_mmap(struct stats *st, int fd, struct map *maps)
{
	int prot = pick(PROT_READ, PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE,
			PROT_READ | PROT_EXEC, PROT_NONE);
	int flags = chance(70) ? MAP_SHARED : MAP_PRIVATE;
	size_t len = chance(85) ? page : pick(2 * page, page / 2, 16 * page);
	uint64_t slot = chance(90) ? below(VNCS) * ENCD_MAX_CONTEXTS + below(ENCD_MAX_CONTEXTS) :
			pick(ENCD_NEC_MAX_DEVICES * ENCD_MAX_CONTEXTS, 1ULL << 40, rnd() >> 12);
	off_t off = chance(97) ? (off_t)(slot * page) : (off_t)(slot * page + 1);
	unsigned int k = below(MAPS);
	uint32_t *v;

	st->mmaps++;
	if (maps[k].at) {
		munmap(maps[k].at, maps[k].len);
		maps[k].at = NULL;
	}
	v = mmap(NULL, len, prot, flags, fd, off);
	if (v == MAP_FAILED)
		return;
	st->mmap_ok++;
	maps[k].at = v;
	maps[k].len = len;
	if (prot & PROT_WRITE) {
		fail(st, "a writable mapping of slot %llu was allowed\n", (unsigned long long)slot);
		return;
	}
	if (prot & PROT_READ && (v[0] != ENCD_SEM_VALUES_HEADER || v[1] != 1 || v[128] != 128))
		fail(st, "slot %llu maps 0x%x %u %u, not the semaphore values\n",
		     (unsigned long long)slot, v[0], v[1], v[128]);
	if (!mprotect(v, len, PROT_READ | PROT_WRITE))
		fail(st, "mprotect(PROT_WRITE) of a mapping of slot %llu was allowed\n",
		     (unsigned long long)slot);
}

/* Attributes: real types mostly, sizes of u32 and u64 mostly, values that matter. */
static size_t r_attrs(char *buf, size_t room)
{
	char *p = buf, *end = buf + room;
	unsigned int n = below(5);
	uint64_t v;
	uint16_t len, type;

	while (n-- && end - p >= 64) {
		type = chance(85) ? below(ENCD_A_GCOMM_MAX + 2) : pick(NLA_F_NESTED | below(20),
									NLA_F_NET_BYTEORDER | 1, rnd());
		len = pick(4, 4, 4, 8, 8, 0, 1, 2, 3, 5, 16, 40);
		v = chance(70) ? pick(0, 1, 2, 3, 255, 256, 4096, UINT32_MAX, rnd()) : rnd();
		if (len <= sizeof(v)) {
			p = (char *)encd_genl_put(p, type, &v, len);
		} else {
			char blob[40];

			r_bytes(blob, sizeof(blob));
			p = (char *)encd_genl_put(p, type, blob, len);
		}
	}
	if (chance(3) && p > buf)
		p -= below(4);	/* an attribute cut short */
	return p - buf;
}

static void do_genl(struct stats *st, struct encd_genl *nl)
{
	uint8_t cmd = chance(90) ? below(ENCD_NL_CMD_MAX + 2) : rnd();
	uint16_t flags = NLM_F_REQUEST | (chance(40) ? NLM_F_DUMP : 0) | (chance(50) ? NLM_F_ACK : 0);
	char attrs[512];
	size_t len = r_attrs(attrs, sizeof(attrs));
	struct nlmsghdr *n;
	int got;

	if (chance(3))
		flags = rnd();
	st->genl++;
	if (encd_genl_send(nl, nl->family, flags, cmd, chance(95) ? ENCD_GENL_VERSION : rnd(), attrs,
			   len))
		return;
	/* Whatever came back, read now: each message must be well formed. */
	while ((got = recv(nl->fd, nl->buf, sizeof(nl->buf), MSG_DONTWAIT)) > 0) {
		for (n = (struct nlmsghdr *)nl->buf; NLMSG_OK(n, got); n = NLMSG_NEXT(n, got)) {
			if (n->nlmsg_type == NLMSG_ERROR) {
				int e = ((struct nlmsgerr *)NLMSG_DATA(n))->error;

				if (e > 0 || e < -4095)
					fail(st, "genl command %u: an ack of %d\n", cmd, e);
			} else if (n->nlmsg_type != NLMSG_DONE && n->nlmsg_type != nl->family) {
				fail(st, "genl command %u: a message of type %u\n", cmd,
				     n->nlmsg_type);
			}
		}
		if (got)
			fail(st, "genl command %u: %d bytes of a cut message\n", cmd, got);
	}
}

static void tick(int sig)
{
}

/* One process: @calls calls, drawn from @seed. */
static int worker(unsigned long calls, uint64_t seed, struct stats *st)
{
	struct sigaction sa = { .sa_handler = tick };
	struct itimerval it = { { 0, TICK_US }, { 0, TICK_US } };
	struct map maps[MAPS] = {};
	struct encd_genl nl;
	int fds[FDS], i, k;
	char *mem;

	rng = seed ?: 1;
	mem = mmap(NULL, (8 + 16) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	/* args: pages 0-1, guard 2; msgbuf, outs: 3, 4, guard 5; progs 6-21, guard 22. */
	args = mem;
	guard = mem + 2 * page;
	msgbuf = mem + 3 * page;
	outs = mem + 4 * page;
	progs = mem + 6 * page;
	if (mprotect(guard, page, PROT_NONE) || mprotect(mem + 5 * page, page, PROT_NONE) ||
	    mprotect(mem + 22 * page, page, PROT_NONE))
		return 1;
	for (i = 0; i < FDS; i++)
		fds[i] = open("/dev/" ENCD_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (encd_genl_open(&nl))
		return 1;
	/* No SA_RESTART: the tick ends every wait of the module with EINTR. */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);

	while (st->calls < calls && !st->failed) {
		k = below(FDS);
		if (fds[k] < 0 || chance(1)) {
			if (fds[k] >= 0) {
				close(fds[k]);
				st->closes++;
			}
			fds[k] = open("/dev/" ENCD_DEVICE_NAME, O_RDWR | O_CLOEXEC);
			if (fds[k] < 0) {
				fail(st, "open: %s\n", strerror(errno));
				break;
			}
		} else if (chance(12)) {
			do_genl(st, &nl);
		} else if (chance(8)) {
			do_mmap(st, fds[k], maps);
		} else if (chance(2)) {
			i = below(MAPS);
			if (maps[i].at)
				munmap(maps[i].at, maps[i].len);
			maps[i].at = NULL;
		} else {
			do_ioctl(st, fds[k]);
		}
		st->calls++;
	}
	setitimer(ITIMER_REAL, &(struct itimerval){}, NULL);
	return st->failed;
}

static unsigned long env_ul(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

int main(void)
{
	const char *lane = getenv("ENCD_LANE");
	unsigned long calls = env_ul("ENCD_FUZZ_CALLS", lane && !strncmp(lane, "debug", 5) ?
				      FUZZ_CALLS_DEBUG : FUZZ_CALLS_SHORT);
	uint64_t seed = env_ul("ENCD_FUZZ_SEED", (uint64_t)time(NULL) * 2654435761ULL ^ getpid());
	int procs = env_ul("ENCD_FUZZ_PROCS", FUZZ_PROCS), i, k, len, status, bad = 0, fd, left;
	char line[512];
	struct stats *st, sum = {};
	struct encd_genl nl;
	struct encd_genl_reply rep;
	struct timespec t0, t1;
	struct enc_program *prog;
	double secs;
	pid_t pid[64];

	ksft_print_header();
	ksft_set_plan(1);
	if (procs < 1 || procs > 64)
		ksft_exit_fail_msg("ENCD_FUZZ_PROCS=%d: 1 to 64\n", procs);
	page = getpagesize();
	for (i = 0; i < (int)N_PROGS; i++) {
		if (enc_program_from_json_string(prog_json[i], &prog) != NRT_SUCCESS ||
		    enc_program_encode(prog, &prog_blob[i], &prog_len[i]) != NRT_SUCCESS ||
		    prog_len[i] > page)
			ksft_exit_fail_msg("program %d: %s\n", i, enc_last_error());
		enc_program_free(prog);
	}
	st = mmap(NULL, procs * sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (st == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(st, 0, procs * sizeof(*st));
	ksft_print_msg("%lu calls from %d processes (lane %s), seed %llu\n", calls, procs,
		       lane ?: "not set", (unsigned long long)seed);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < procs; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pid[i])
			_exit(worker(calls / procs + (i < (int)(calls % procs)),
				     seed + 0x9e3779b97f4a7c15ULL * (i + 1), &st[i]));
	}
	for (i = 0; i < procs; i++) {
		if (waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			ksft_print_msg("process %d (seed %llu): %s %d\n", i,
				       (unsigned long long)(seed + 0x9e3779b97f4a7c15ULL * (i + 1)),
				       WIFSIGNALED(status) ? "killed by signal" : "exit status",
				       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			bad++;
		}
		sum.calls += st[i].calls;
		sum.ioctls += st[i].ioctls;
		sum.ioctl_ok += st[i].ioctl_ok;
		sum.genl += st[i].genl;
		sum.mmaps += st[i].mmaps;
		sum.mmap_ok += st[i].mmap_ok;
		sum.closes += st[i].closes;
		for (k = 0; k < N_IOCTLS; k++)
			sum.ok_by[k] += st[i].ok_by[k];
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ksft_print_msg("%lu calls in %.1f s: %lu ioctls (%lu succeeded), %lu netlink messages, %lu mmaps (%lu mapped), %lu closes\n",
		       sum.calls, secs, sum.ioctls, sum.ioctl_ok, sum.genl, sum.mmaps, sum.mmap_ok,
		       sum.closes);
	for (k = 0, len = 0; k < N_IOCTLS; k++)
		len += snprintf(line + len, sizeof(line) - len, " %s %lu", ioctls[k].name,
				sum.ok_by[k]);
	ksft_print_msg("succeeded:%s\n", line);

	/* Every file is closed: no comm is left, by ioctl or netlink. */
	fd = open("/dev/" ENCD_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	left = 0;
	for (i = 0; fd >= 0 && i < VNCS * ENCD_MAX_CONTEXTS; i++) {
		struct encd_get_global_comm get = {
			.head.size = sizeof(get), .vnc = i / ENCD_MAX_CONTEXTS,
			.ctx_id = i % ENCD_MAX_CONTEXTS,
		};

		left += !ioctl(fd, ENCD_IOC_GET_GLOBAL_COMM, &get);
	}
	if (fd < 0 || encd_genl_open(&nl) || encd_genl_dump(&nl, ENCD_NL_CMD_GCOMM_GET, -1, &rep))
		ksft_exit_fail_msg("cannot look at the module afterwards\n");
	if (left || rep.msgs) {
		ksft_print_msg("%d comms left by ioctl, %d by netlink\n", left, rep.msgs);
		bad++;
	}
	if (sum.calls != calls) {
		ksft_print_msg("%lu calls made of %lu\n", sum.calls, calls);
		bad++;
	}
	if (bad)
		ksft_test_result_fail("fuzz: %lu calls, seed %llu\n", sum.calls,
				      (unsigned long long)seed);
	else
		ksft_test_result_pass("fuzz: %lu calls in %.0f s\n", sum.calls, secs);
	return bad ? ksft_exit_fail() : ksft_exit_pass();
}
