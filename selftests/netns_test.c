// SPDX-License-Identifier: GPL-2.0
/*
 * A global comm belongs to the network namespace it was built in. From any
 * other namespace (the initial one included, and either way round), a file
 * that does not hold it can neither attach to it (BUILD and VALIDATE: EBUSY)
 * nor read it (GET_GLOBAL_COMM, NODE_INFO, mmap of its semaphore buffer:
 * ENOENT), nor use it (SETUP, INIT_REPLICA_GROUPS, COMM_BARRIER,
 * PROGRAM_LOAD, RELEASE: ENOENT); the "encd" family's GCOMM_GET (do and
 * dump) and NODE_GET (dump) there show nothing of it, and its events do
 * not reach that namespace's listeners. In its own namespace all of it is
 * there (the checks that make the refusals mean something).
 *
 * And a world's sockets live in its comm's namespace, not in the caller's:
 * rank 0 built in a new namespace and set up from the initial one forms a
 * world with rank 1 in the new namespace (TCP forced between them, so rank
 * 1 connects to rank 0's listener), and nothing listens on the root's port
 * in the initial one.
 *
 * netlink_test covers BUILD, VALIDATE, GET and the GCOMM_GET dump and
 * events between namespaces too; this program adds the rest.
 */
#include <net/if.h>
#include <sched.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <enc/json.h>
#include <enc/program.h>

#include "encd_genl.h"
#include "encd_test.h"

#define VNC		5
#define CTX		0
#define ROOT_PORT	47300

/* In a child: a failed check says which and ends it with status 1. */
#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "# %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);			\
			fprintf(stderr, " (last sentence: \"%s\")\n", encd_msg); \
			return 1;					\
		}							\
	} while (0)

/* A new network namespace with its loopback up. */
static int new_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s, err;

	if (unshare(CLONE_NEWNET))
		return -1;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	err = ioctl(s, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	err = err ?: ioctl(s, SIOCSIFFLAGS, &ifr);
	close(s);
	return err;
}

/* Two processes: the comm's owner and a stranger in another namespace. */
struct pair {
	int to_owner[2], to_stranger[2];
};

/*
 * The owner: builds a world of one on (VNC, CTX), sets it up and brings a
 * replica group up; sees all of it, by ioctl, mmap and netlink, and hears
 * its events; then tells the stranger and waits for it.
 */
static int owner(struct pair *p)
{
	static const char json[] =
		"{\"replica_groups\": [{\"group_id\": 0, \"rank\": 0, \"rank_n\": 1,"
		" \"participants\": [0], \"stream_id\": 1}],"
		" \"ops\": [{\"op\": \"all_reduce\", \"size_n\": 64, \"group\": 0}]}";
	struct encd_node_info ni;
	struct encd_glb_comm_header hdr;
	struct encd_genl nl, events;
	struct encd_genl_reply rep;
	struct enc_program *prog;
	size_t len;
	const struct nlmsghdr *ev;
	void *blob, *map;
	int fd, formed = 0;

	CHECK(!encd_genl_open(&nl) && !encd_genl_open(&events) &&
	      !encd_genl_join_events(&events), "no encd family here");
	/* The stranger listens for events before anything happens. */
	CHECK(!encd_wait_byte(p->to_owner[0], 30), "the stranger never said it listens");
	fd = encd_open();
	CHECK(fd >= 0, "cannot open %s", ENCD_DEV);
	CHECK(!encd_build(fd, VNC, 0, 1, CTX, NULL), "BUILD");
	CHECK(!encd_setup(fd, VNC, CTX, 0, NULL), "SETUP");
	CHECK(enc_program_from_json_string(json, &prog) == NRT_SUCCESS &&
	      enc_program_encode(prog, &blob, &len) == NRT_SUCCESS, "the program");
	enc_program_free(prog);
	CHECK(!encd_program_load(fd, VNC, CTX, blob, len), "PROGRAM_LOAD");
	free(blob);
	CHECK(!encd_init_groups(fd, VNC, CTX, 0, NULL), "INIT_REPLICA_GROUPS");

	/* Its own namespace sees everything. */
	CHECK(!encd_get(fd, VNC, CTX, &hdr), "GET");
	CHECK(!encd_node_info(fd, VNC, CTX, 0, &ni), "NODE_INFO");
	map = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, hdr.inc_recv_sem_values_buffer);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	munmap(map, getpagesize());
	CHECK(!encd_genl_gcomm_get(&nl, VNC, CTX), "GCOMM_GET");
	CHECK(!encd_genl_dump(&nl, ENCD_NL_CMD_GCOMM_GET, -1, &rep) && !rep.err && rep.msgs == 1,
	      "GCOMM_GET dump: %d comms (%d)", rep.msgs, rep.err);
	/* The world's node and the group's. */
	CHECK(!encd_genl_dump(&nl, ENCD_NL_CMD_NODE_GET, VNC, &rep) && !rep.err && rep.msgs == 2,
	      "NODE_GET dump: %d nodes (%d)", rep.msgs, rep.err);
	ev = encd_genl_next_event(&events, 2000);
	CHECK(ev && encd_genl_cmd(ev) == ENCD_NL_CMD_GCOMM_ADD_NTF, "no GCOMM_ADD event");
	while ((ev = encd_genl_next_event(&events, 500)))
		formed += encd_genl_cmd(ev) == ENCD_NL_CMD_WORLD_FORMED_NTF;
	CHECK(formed == 2, "%d WORLD_FORMED events, not 2", formed);

	CHECK(!encd_send_byte(p->to_stranger[1]) && !encd_wait_byte(p->to_owner[0], 30),
	      "the stranger");
	close(fd);
	return 0;
}

/*
 * The stranger, in another namespace, with its events listener joined
 * before the owner builds anything: nothing of the owner's comm.
 */
static int stranger(struct pair *p, struct encd_genl *nl, struct encd_genl *events)
{
	struct encd_node_info ni;
	struct encd_prog_header blob = {};
	const char *not_held = "This file does not hold the global comm of core 5 context 0";
	const char *other_ns = "Core 5 context 0 has a global comm of another network namespace";
	const struct nlmsghdr *ev;
	struct encd_genl_reply rep;
	int fd;
	void *map;

	CHECK(!encd_send_byte(p->to_owner[1]), "the owner");
	CHECK(!encd_wait_byte(p->to_stranger[0], 30), "the owner never said it was ready");
	fd = encd_open();
	CHECK(fd >= 0, "cannot open %s", ENCD_DEV);

	/* Attach, as the owner built it: refused. */
	CHECK(encd_build(fd, VNC, 0, 1, CTX, NULL) == EBUSY && !strcmp(encd_msg, other_ns),
	      "BUILD attached");
	CHECK(encd_validate(fd, VNC, 0, 1, CTX, NULL) == EBUSY && !strcmp(encd_msg, other_ns),
	      "VALIDATE attached");
	/* Read: nothing there. */
	CHECK(encd_get(fd, VNC, CTX, NULL) == ENOENT &&
	      !strcmp(encd_msg, "No global comm on core 5 context 0"), "GET read it");
	CHECK(encd_node_info(fd, VNC, CTX, ENCD_GROUP_GLOBAL, &ni) == ENOENT &&
	      !strcmp(encd_msg, not_held), "NODE_INFO read it");
	map = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd,
		   ENCD_SEM_MMAP_OFFSET(VNC, CTX, getpagesize()));
	CHECK(map == MAP_FAILED && errno == ENOENT, "mmap of its semaphore buffer: %s",
	      map == MAP_FAILED ? strerror(errno) : "mapped");
	/* Use: nothing held. */
	CHECK(encd_setup(fd, VNC, CTX, 0, NULL) == ENOENT && !strcmp(encd_msg, not_held), "SETUP");
	CHECK(encd_init_groups(fd, VNC, CTX, 0, NULL) == ENOENT && !strcmp(encd_msg, not_held),
	      "INIT_REPLICA_GROUPS");
	CHECK(encd_barrier(fd, VNC, CTX, 0, ENCD_GROUP_GLOBAL, 0, NULL) == ENOENT &&
	      !strcmp(encd_msg, not_held), "COMM_BARRIER");
	CHECK(encd_program_load(fd, VNC, CTX, &blob, sizeof(blob)) == ENOENT &&
	      !strcmp(encd_msg, not_held), "PROGRAM_LOAD");
	CHECK(encd_release(fd, VNC, CTX) == ENOENT && !strcmp(encd_msg, not_held), "RELEASE");

	/* Netlink: nothing there, nothing heard. */
	CHECK(encd_genl_gcomm_get(nl, VNC, CTX) == -ENOENT, "GCOMM_GET found it");
	CHECK(!encd_genl_dump(nl, ENCD_NL_CMD_GCOMM_GET, -1, &rep) && !rep.err && !rep.msgs,
	      "GCOMM_GET dump: %d comms", rep.msgs);
	CHECK(!encd_genl_dump(nl, ENCD_NL_CMD_NODE_GET, -1, &rep) && !rep.err && !rep.msgs,
	      "NODE_GET dump: %d nodes", rep.msgs);
	CHECK(!encd_genl_dump(nl, ENCD_NL_CMD_NODE_GET, VNC, &rep) && !rep.err && !rep.msgs,
	      "NODE_GET dump of core 5: %d nodes", rep.msgs);
	ev = encd_genl_next_event(events, 300);
	CHECK(!ev, "heard event %d of another namespace's comm", ev ? encd_genl_cmd(ev) : 0);

	close(fd);
	return encd_send_byte(p->to_owner[1]) ? 1 : 0;
}

/* Runs the owner in a child and the stranger here, or the other way round. */
static int run_pair(bool owner_in_child, bool child_in_new_netns)
{
	struct encd_genl nl, events;
	struct pair p;
	int status, err = 0;
	pid_t pid;

	if (pipe(p.to_owner) || pipe(p.to_stranger))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (child_in_new_netns && new_netns())
			_exit(10);
		if (owner_in_child)
			_exit(owner(&p));
		if (encd_genl_open(&nl) || encd_genl_open(&events) ||
		    encd_genl_join_events(&events))
			_exit(11);
		_exit(stranger(&p, &nl, &events));
	}
	if (owner_in_child) {
		if (encd_genl_open(&nl) || encd_genl_open(&events) ||
		    encd_genl_join_events(&events))
			err = 11;
		else
			err = stranger(&p, &nl, &events);
	} else {
		err = owner(&p);
	}
	if (err)
		kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return err ?: WEXITSTATUS(status);
}

TEST(a_comm_of_a_new_netns_is_out_of_the_initial_ones_reach)
{
	ASSERT_EQ(0, run_pair(true, true));
}

TEST(a_comm_of_the_initial_netns_is_out_of_a_new_ones_reach)
{
	ASSERT_EQ(0, run_pair(false, true));
}

/*
 * Rank 0 is built in a new namespace B and set up from the initial one;
 * rank 1 is built and set up in B. They report on @res; rank 0 first says
 * (on @res) that it is about to set up from the initial namespace.
 */
static int rank_in(int ns_home, __u32 rank, int res, int go)
{
	struct encd_setup_global_comm s;
	struct encd_rank_result r = { .rank = rank };
	int fd = encd_open();
	char root[32], c;

	snprintf(root, sizeof(root), "127.0.0.1:%d", ROOT_PORT);
	r.err = fd < 0 ? errno : encd_build_root(fd, 6 + rank, rank, 2, CTX, root);
	if (!r.err && ns_home >= 0 && setns(ns_home, CLONE_NEWNET))
		r.err = errno;
	if (!r.err) {
		r.err = encd_setup_flags(fd, 6 + rank, CTX, ENCD_SETUP_FORCE_TCP, 20000, &s);
		r.out_flags = s.out_flags;
		r.rank_n = s.rank_n;
	}
	snprintf(r.msg, sizeof(r.msg), "%s", encd_msg);
	if (write(res, &r, sizeof(r)) != sizeof(r))
		return 3;
	while (read(go, &c, 1) > 0)
		;
	return 0;
}

TEST(a_worlds_sockets_live_in_its_comms_netns)
{
	struct encd_rank_result r[2];
	int res[2], go[2], status, home, i;
	pid_t pid;

	ASSERT_EQ(0, pipe(res));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		pid_t rank1;
		int status1;

		close(res[0]);
		close(go[1]);
		home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (home < 0 || new_netns())
			_exit(10);
		/* Rank 1 stays in B; rank 0 (this process) goes home to set up. */
		rank1 = fork();
		if (rank1 < 0)
			_exit(11);
		if (!rank1)
			_exit(rank_in(-1, 1, res[1], go[0]));
		status = rank_in(home, 0, res[1], go[0]);
		/* Rank 1 reported; it must also have ended well. */
		if (waitpid(rank1, &status1, 0) != rank1 || !WIFEXITED(status1) ||
		    WEXITSTATUS(status1))
			status = status ?: 12;
		_exit(status);
	}
	close(res[1]);
	close(go[0]);
	for (i = 0; i < 2; i++) {
		struct encd_rank_result one;

		ASSERT_EQ(sizeof(one), read(res[0], &one, sizeof(one)));
		ASSERT_GT(2, one.rank);
		r[one.rank] = one;
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, r[i].err) {
			TH_LOG("rank %d: %s: %s", i, strerror(r[i].err), r[i].msg);
		}
		ASSERT_EQ(ENCD_SETUP_OUT_FORMED, r[i].out_flags);
		ASSERT_EQ(2, r[i].rank_n);
	}
	/* While the world lives: its root listens in B, not here. */
	ASSERT_FALSE(encd_tcp_listening(ROOT_PORT));
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
