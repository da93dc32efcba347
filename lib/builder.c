// SPDX-License-Identifier: GPL-2.0
/*
 * Collective programs in memory: enc_program_new(), the enc_program_add_*()
 * calls that append to one in program order, and the names of the op codes.
 *
 * The kernel is the one validator of a program's meaning (ids against the
 * world, ranks, counts): the builder only refuses what it cannot store, so
 * that a program is judged the same way whichever way it was made.
 */
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "enc_internal.h"

static const char *const op_names[] = {
	[ENC_ALL_REDUCE] = "all_reduce",
	[ENC_ALL_GATHER] = "all_gather",
	[ENC_REDUCE_SCATTER] = "reduce_scatter",
	[ENC_ALL_TO_ALL] = "all_to_all",
	[ENC_PERMUTE] = "permute",
	[ENC_SEND] = "send",
	[ENC_RECV] = "recv",
	[ENC_BROADCAST] = "broadcast",
};

const char *enc_op_name(uint32_t op)
{
	return op < sizeof(op_names) / sizeof(op_names[0]) ? op_names[op] : NULL;
}

/* Makes room for one more element in *@arr of *@cap; false when out of memory. */
static bool grow(void **arr, uint32_t n, uint32_t *cap, size_t elem)
{
	uint32_t ncap;
	void *p;

	if (n < *cap)
		return true;
	if (n == UINT32_MAX)
		return false;
	ncap = *cap ? (*cap > UINT32_MAX / 2 ? UINT32_MAX : *cap * 2) : 8;
	p = reallocarray(*arr, ncap, elem);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

static bool ids_copy(struct enc_ids *dst, const uint32_t *src, uint32_t n)
{
	dst->n = n;
	dst->v = malloc(n ? (size_t)n * sizeof(*src) : 1);
	if (!dst->v)
		return false;
	if (n)
		memcpy(dst->v, src, (size_t)n * sizeof(*src));
	return true;
}

struct enc_program *enc_program_new(void)
{
	return calloc(1, sizeof(struct enc_program));
}

void enc_program_free(struct enc_program *prog)
{
	uint32_t i, j;

	if (!prog)
		return;
	for (i = 0; i < prog->n_groups; i++) {
		free(prog->groups[i].participants.v);
		free(prog->groups[i].bootstrap.v);
	}
	for (i = 0; i < prog->n_stps; i++) {
		free(prog->stps[i].participants.v);
		for (j = 0; j < prog->stps[i].n_pairs; j++)
			free(prog->stps[i].pairs[j].v);
		free(prog->stps[i].pairs);
	}
	free(prog->groups);
	free(prog->stps);
	free(prog->ops);
	free(prog);
}

NRT_STATUS enc_program_add_replica_group(struct enc_program *prog,
					 const struct enc_replica_group_desc *rg)
{
	struct enc_group *g;

	if (!prog || !rg || (rg->participants_n && !rg->participants) ||
	    (rg->bootstrap_participants_n && !rg->bootstrap_participants))
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "%s: NULL program, group or list", __func__);
	if (!grow((void **)&prog->groups, prog->n_groups, &prog->cap_groups, sizeof(*g)))
		return enc_no_mem(__func__);
	g = &prog->groups[prog->n_groups];
	memset(g, 0, sizeof(*g));
	g->d = *rg;
	if (!ids_copy(&g->participants, rg->participants, rg->participants_n) ||
	    !ids_copy(&g->bootstrap, rg->bootstrap_participants, rg->bootstrap_participants_n)) {
		free(g->participants.v);
		return enc_no_mem(__func__);
	}
	g->d.participants = g->participants.v;
	g->d.bootstrap_participants = g->bootstrap.v;
	prog->n_groups++;
	return NRT_SUCCESS;
}

static struct enc_stp *find_stp(struct enc_program *prog, uint32_t id)
{
	uint32_t i;

	/* The last one first: pairs are usually added right after their set. */
	for (i = prog->n_stps; i-- > 0;)
		if (prog->stps[i].id == id)
			return &prog->stps[i];
	return NULL;
}

NRT_STATUS enc_program_add_src_target_pairs(struct enc_program *prog, uint32_t id,
					    const uint32_t *participants, uint32_t participants_n)
{
	struct enc_stp *s;

	if (!prog || (participants_n && !participants))
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "%s: NULL program or list", __func__);
	if (!grow((void **)&prog->stps, prog->n_stps, &prog->cap_stps, sizeof(*s)))
		return enc_no_mem(__func__);
	s = &prog->stps[prog->n_stps];
	memset(s, 0, sizeof(*s));
	s->id = id;
	if (!ids_copy(&s->participants, participants, participants_n))
		return enc_no_mem(__func__);
	prog->n_stps++;
	return NRT_SUCCESS;
}

NRT_STATUS enc_program_add_pair(struct enc_program *prog, uint32_t stp_id,
				const uint32_t *ids, uint32_t n)
{
	struct enc_stp *s;

	if (!prog || (n && !ids))
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "%s: NULL program or list", __func__);
	s = find_stp(prog, stp_id);
	if (!s)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "%s: no src-target-pair set with id %u", __func__, stp_id);
	if (!grow((void **)&s->pairs, s->n_pairs, &s->cap_pairs, sizeof(*s->pairs)))
		return enc_no_mem(__func__);
	if (!ids_copy(&s->pairs[s->n_pairs], ids, n))
		return enc_no_mem(__func__);
	s->n_pairs++;
	return NRT_SUCCESS;
}

NRT_STATUS enc_program_add_op(struct enc_program *prog, const struct enc_op_desc *op)
{
	if (!prog || !op)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "%s: NULL program or op", __func__);
	if (!grow((void **)&prog->ops, prog->n_ops, &prog->cap_ops, sizeof(*op)))
		return enc_no_mem(__func__);
	prog->ops[prog->n_ops++] = *op;
	return NRT_SUCCESS;
}
