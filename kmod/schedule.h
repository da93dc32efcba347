/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The communication schedules of get_nccl_comm (libnrt's section 5), as
 * pure functions of (rank, rank_n), so that the kernel and the user-space
 * property tests (selftests/schedule_test.c) run the very same code.
 *
 * Signature validation is an AND-reduce up a binary tree: rank r's children
 * are 2r+1 and 2r+2, its parent (r-1)>>1. The unique id and the root's verdict
 * then go down a hypercube (a binomial tree): rank r > 0 receives once, from
 * r with its lowest set bit cleared, and sends to r + step for every power of
 * two step below that bit (below the first power of two >= rank_n for the
 * root), largest step first. That takes ceil(log2(rank_n)) rounds.
 *
 * The header depends on nothing but u32 and bool, which the includer
 * provides (<linux/types.h> in the kernel, <stdint.h>/<stdbool.h> plus a
 * typedef in user space).
 */
#ifndef _ENCD_SCHEDULE_H
#define _ENCD_SCHEDULE_H

#define ENCD_TREE_NO_PARENT	((u32)-1)

static inline u32 encd_tree_parent(u32 rank)
{
	return rank ? (rank - 1) >> 1 : ENCD_TREE_NO_PARENT;
}

/* Whether @j is in the binary-tree subtree of @i, @i itself included. */
static inline bool encd_tree_within(u32 i, u32 j)
{
	while (j > i)
		j = (j - 1) >> 1;
	return j == i;
}

/* The i-th (0 or 1) binary-tree child of @rank, or rank_n when it has none. */
static inline u32 encd_tree_child(u32 rank, u32 rank_n, unsigned int i)
{
	u64 c = 2 * (u64)rank + 1 + i;

	return c < rank_n ? (u32)c : rank_n;
}

/*
 * libnrt's mask loop: climb from bit 0 to the lowest set bit of @rank; the
 * root (rank 0) climbs until the mask covers rank_n. The result is the
 * rank's level in the hypercube: its parent is rank & ~mask (for rank > 0)
 * and it sends to rank + step for step = mask >> 1, mask >> 2, ..., 1.
 * It is 64 bits wide because the root's mask may be 2^32.
 */
static inline u64 encd_cube_mask(u32 rank, u32 rank_n)
{
	u64 mask = 1;

	while (!(mask & rank)) {
		mask <<= 1;
		if (rank_n <= mask)
			break;
	}
	return mask;
}

static inline u32 encd_cube_parent(u32 rank, u32 rank_n)
{
	u64 mask = encd_cube_mask(rank, rank_n);

	return (mask & rank) ? (u32)(rank & ~mask) : ENCD_TREE_NO_PARENT;
}

/*
 * Iterates the hypercube sends of @rank: step starts at encd_cube_mask() >> 1
 * and halves; a step is used when rank + step < rank_n.
 */
static inline bool encd_cube_send_ok(u32 rank, u32 rank_n, u64 step)
{
	return (u64)rank + step < rank_n;
}

/* ceil(log2(n)) for n >= 1: the rounds of the broadcast and the barrier. */
static inline u32 encd_ceil_log2(u32 n)
{
	u32 r = 0;

	while (r < 32 && (1ULL << r) < n)
		r++;
	return r;
}

/*
 * The round (1-based) in which @rank receives the broadcast: the position of
 * its lowest set bit counted from the top of the root's cube. The root has
 * it at round 0.
 */
static inline u32 encd_cube_round(u32 rank, u32 rank_n)
{
	u32 top = encd_ceil_log2(rank_n), low = 0;

	if (!rank)
		return 0;
	while (!(rank & (1U << low)))
		low++;
	return top - low;
}

/*
 * The dissemination barrier: in round k (0-based, ceil(log2 n) rounds) rank
 * r sends to (r + 2^k) mod n and receives from (r - 2^k) mod n.
 */
static inline u32 encd_dissem_to(u32 rank, u32 rank_n, u32 k)
{
	return (u32)(((u64)rank + (1ULL << k)) % rank_n);
}

static inline u32 encd_dissem_from(u32 rank, u32 rank_n, u32 k)
{
	u64 d = (1ULL << k) % rank_n;

	return (u32)(((u64)rank + rank_n - d) % rank_n);
}

#endif /* _ENCD_SCHEDULE_H */
