// SPDX-License-Identifier: GPL-2.0
/*
 * Property tests of the bootstrap schedules in kmod/schedule.h, the header
 * the kernel uses: for every world size from 1 to 4096 and sampled sizes up
 * to 1,000,000, the binary-tree AND-reduce, the hypercube broadcast and the
 * dissemination barrier are simulated message by message and checked:
 *
 *   - every send has exactly one matching receive, and no receive is left
 *     without its send;
 *   - every rank but the root gets the unique id exactly once, and only
 *     after its sender had it;
 *   - the tree reaches every rank (parent pointers lead to rank 0);
 *   - the broadcast takes ceil(log2 N) rounds, as does the barrier;
 *   - after the barrier's last round every rank has heard, through the
 *     messages of the rounds, that every other rank arrived.
 *
 * Pure user space: it needs no VM, but runs there too. KTAP output.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
typedef uint64_t u64;
#include "../kmod/schedule.h"

static u32 *cnt, *round_of, *depth;
static u64 *knows, *knew;
static const char *why;

#define FAIL(...) do { static char b[256]; snprintf(b, sizeof(b), __VA_ARGS__); why = b; return false; } while (0)

/* Binary tree: each child sends once to its parent; each parent receives from
 * exactly the children the tree gives it. */
static bool check_tree(u32 n)
{
	u32 r, i, expect;

	memset(cnt, 0, n * sizeof(*cnt));
	if (encd_tree_parent(0) != ENCD_TREE_NO_PARENT)
		FAIL("root has a parent");
	for (r = 1; r < n; r++) {
		u32 p = encd_tree_parent(r);

		if (p >= r)
			FAIL("N=%u: parent of %u is %u", n, r, p);
		if (encd_tree_child(p, n, 0) != r && encd_tree_child(p, n, 1) != r)
			FAIL("N=%u: %u sends to %u which does not expect it", n, r, p);
		cnt[p]++;
	}
	for (r = 0; r < n; r++) {
		expect = 0;
		for (i = 0; i < 2; i++) {
			u32 c = encd_tree_child(r, n, i);

			if (c == n)
				continue;
			if (encd_tree_parent(c) != r)
				FAIL("N=%u: %u waits for %u which sends elsewhere", n, r, c);
			expect++;
		}
		if (cnt[r] != expect)
			FAIL("N=%u: %u gets %u sends, expects %u", n, r, cnt[r], expect);
	}
	/* Reach: depth(r) = depth(parent) + 1, finite because parent < r. */
	depth[0] = 0;
	for (r = 1; r < n; r++) {
		depth[r] = depth[encd_tree_parent(r)] + 1;
		if (depth[r] > 32)
			FAIL("N=%u: %u is %u levels deep", n, r, depth[r]);
	}
	return true;
}

/* Hypercube: simulate the fan-out from the root, round by round. */
static bool check_cube(u32 n)
{
	u32 r, rounds = encd_ceil_log2(n), maxround = 0;

	memset(cnt, 0, n * sizeof(*cnt));
	for (r = 0; r < n; r++)
		round_of[r] = encd_cube_round(r, n);
	for (r = 0; r < n; r++) {
		u64 mask = encd_cube_mask(r, n), step;
		u32 last = round_of[r];

		if (r && !(mask & r))
			FAIL("N=%u: rank %u has no cube parent", n, r);
		if (r && encd_cube_parent(r, n) >= r)
			FAIL("N=%u: cube parent of %u is %u", n, r, encd_cube_parent(r, n));
		for (step = mask >> 1; step; step >>= 1) {
			u32 to;

			if (!encd_cube_send_ok(r, n, step))
				continue;
			to = r + (u32)step;
			if (encd_cube_parent(to, n) != r)
				FAIL("N=%u: %u sends to %u whose parent is %u", n, r, to,
				     encd_cube_parent(to, n));
			/* Sends go out in increasing rounds, after r had the id. */
			if (round_of[to] <= last)
				FAIL("N=%u: %u sends to %u in round %u, not after %u", n, r, to,
				     round_of[to], last);
			last = round_of[to];
			cnt[to]++;
		}
		if (round_of[r] > maxround)
			maxround = round_of[r];
	}
	if (cnt[0])
		FAIL("N=%u: the root receives its own id", n);
	for (r = 1; r < n; r++)
		if (cnt[r] != 1)
			FAIL("N=%u: rank %u gets the unique id %u times", n, r, cnt[r]);
	if (maxround != rounds)
		FAIL("N=%u: broadcast takes %u rounds, ceil(log2 N) = %u", n, maxround, rounds);
	return true;
}

/*
 * The dissemination barrier: in every round each rank sends once and
 * receives once, from the rank that sends to it; and what each rank knows of
 * the others' arrival, passed on round by round (a rank sends what it knew
 * when the round began), covers every rank after the last round, so that no
 * rank leaves before all have arrived. Knowledge is tracked for 64 ranks at
 * once, one bit each in a u64 per rank: all of them for N <= 64, and 64
 * spread over the world (both ends among them) for larger N.
 */
static bool check_dissem(u32 n)
{
	u32 k, r, i, rounds = encd_ceil_log2(n);
	u64 all = 0;

	memset(knows, 0, n * sizeof(*knows));
	for (i = 0; i < 64 && i < n; i++) {
		r = n <= 64 ? i : (u32)((u64)i * (n - 1) / 63);
		knows[r] |= 1ULL << i;
		all |= 1ULL << i;
	}
	for (k = 0; k < rounds; k++) {
		memset(cnt, 0, n * sizeof(*cnt));
		memcpy(knew, knows, n * sizeof(*knows));
		for (r = 0; r < n; r++) {
			u32 to = encd_dissem_to(r, n, k);

			if (to >= n)
				FAIL("N=%u round %u: %u sends to %u, outside the world", n, k, r,
				     to);
			if (encd_dissem_from(to, n, k) != r)
				FAIL("N=%u round %u: %u sends to %u, which waits for %u", n, k, r,
				     to, encd_dissem_from(to, n, k));
			cnt[to]++;
			knows[to] |= knew[r];
		}
		for (r = 0; r < n; r++)
			if (cnt[r] != 1)
				FAIL("N=%u round %u: %u gets %u messages", n, k, r, cnt[r]);
	}
	for (r = 0; r < n; r++)
		if (knows[r] != all)
			FAIL("N=%u: after %u rounds rank %u has not heard of every rank (%llx of %llx)",
			     n, rounds, r, (unsigned long long)knows[r],
			     (unsigned long long)all);
	return true;
}

static bool check_log2(void)
{
	static const u32 v[][2] = { {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {8, 3}, {9, 4},
				    {1000000, 20}, {1U << 20, 20}, {(1U << 20) + 1, 21},
				    {0x80000000U, 31}, {0x80000001U, 32}, {0xffffffffU, 32} };
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (encd_ceil_log2(v[i][0]) != v[i][1])
			FAIL("ceil_log2(%u) = %u, not %u", v[i][0], encd_ceil_log2(v[i][0]), v[i][1]);
	return true;
}

/* libnrt's schedules for N = 8, written out. */
static bool check_golden(void)
{
	if (encd_cube_mask(0, 8) != 8 || encd_cube_mask(4, 8) != 4 || encd_cube_mask(6, 8) != 2 ||
	    encd_cube_mask(7, 8) != 1)
		FAIL("cube masks for N=8");
	if (encd_cube_parent(6, 8) != 4 || encd_cube_parent(5, 8) != 4 || encd_cube_parent(3, 8) != 2)
		FAIL("cube parents for N=8");
	if (encd_tree_child(3, 8, 0) != 7 || encd_tree_child(3, 8, 1) != 8 || encd_tree_parent(6) != 2)
		FAIL("tree for N=8");
	return true;
}

typedef bool (*check_fn)(u32 n);

static int run(const char *name, check_fn fn, int *idx)
{
	static const u32 big[] = { 4097, 5000, 8191, 8192, 8193, 10007, 16384, 65535, 65536,
				   65537, 100000, 131071, 131072, 262143, 262145, 500000,
				   524287, 524288, 524289, 777777, 999999, 1000000 };
	unsigned int i;
	u32 n;

	why = NULL;
	for (n = 1; n <= 4096 && !why; n++)
		fn(n);
	for (i = 0; i < sizeof(big) / sizeof(big[0]) && !why; i++)
		fn(big[i]);
	/* A few pseudo-random sizes, the same on every run. */
	for (i = 0, n = 12345; i < 16 && !why; i++) {
		n = (n * 1103515245U + 12345U) % 1000000U + 1;
		fn(n);
	}
	printf("%s %d %s%s%s\n", why ? "not ok" : "ok", ++*idx, name, why ? " # " : "",
	       why ? why : "");
	return why ? 1 : 0;
}

int main(void)
{
	int idx = 0, fails = 0;

	cnt = calloc(1000001, sizeof(*cnt));
	round_of = calloc(1000001, sizeof(*round_of));
	depth = calloc(1000001, sizeof(*depth));
	knows = calloc(1000001, sizeof(*knows));
	knew = calloc(1000001, sizeof(*knew));
	if (!cnt || !round_of || !depth || !knows || !knew)
		return 1;

	printf("TAP version 13\n1..5\n");
	why = NULL;
	check_log2();
	printf("%s %d ceil_log2%s%s\n", why ? "not ok" : "ok", ++idx, why ? " # " : "", why ? why : "");
	fails += !!why;
	why = NULL;
	check_golden();
	printf("%s %d golden_n8%s%s\n", why ? "not ok" : "ok", ++idx, why ? " # " : "", why ? why : "");
	fails += !!why;
	fails += run("tree_send_recv_match_and_reach", check_tree, &idx);
	fails += run("cube_unique_id_once_in_ceil_log2_rounds", check_cube, &idx);
	fails += run("dissemination_barrier_tells_every_rank_of_every_arrival", check_dissem, &idx);
	printf("# %d passed, %d failed\n", idx - fails, fails);
	return fails ? 1 : 0;
}
