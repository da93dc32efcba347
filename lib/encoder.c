// SPDX-License-Identifier: GPL-2.0
/*
 * The encoder: a program in memory (builder.h) to the binary description
 * that ENCD_IOC_PROGRAM_LOAD reads, laid out as uapi/linux/encd.h
 * "Programs" says: header, groups, stps, pair vectors, ops, then one array
 * of ids that every list points into. All little-endian.
 */
#include <endian.h>
#include <stdlib.h>

#include "builder.h"
#include "enc_internal.h"

struct writer {
	struct encd_prog_vec *pair_out;
	__le32 *ids;
	uint32_t id_at;
	uint32_t pair_at;
};

static void put_list(struct writer *w, struct encd_prog_vec *v, const struct enc_ids *ids)
{
	uint32_t i;

	v->off = htole32(w->id_at);
	v->len = htole32(ids->n);
	for (i = 0; i < ids->n; i++)
		w->ids[w->id_at + i] = htole32(ids->v[i]);
	w->id_at += ids->n;
}

static uint32_t group_num_ops(const struct enc_program *prog, const struct enc_group *g)
{
	uint32_t i, n = 0;

	if (g->d.num_ops >= 0)
		return (uint32_t)g->d.num_ops;
	for (i = 0; i < prog->n_ops; i++)
		n += !prog->ops[i].stp && prog->ops[i].owner == g->d.group_id;
	return n;
}

NRT_STATUS enc_program_encode(const struct enc_program *prog, void **bufp, size_t *lenp)
{
	struct encd_prog_header *hdr;
	struct encd_prog_group *gout;
	struct encd_prog_stp *sout;
	struct encd_prog_op *oout;
	struct writer w = { 0 };
	uint64_t n_ids = 0, n_pairs = 0, len;
	uint32_t i, j;
	char *buf;

	if (!prog || !bufp || !lenp)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT, "%s: NULL argument",
					 __func__);
	for (i = 0; i < prog->n_groups; i++)
		n_ids += (uint64_t)prog->groups[i].participants.n + prog->groups[i].bootstrap.n;
	for (i = 0; i < prog->n_stps; i++) {
		n_ids += prog->stps[i].participants.n;
		n_pairs += prog->stps[i].n_pairs;
		for (j = 0; j < prog->stps[i].n_pairs; j++)
			n_ids += prog->stps[i].pairs[j].n;
	}
	len = sizeof(*hdr) + (uint64_t)prog->n_groups * sizeof(*gout) +
	      (uint64_t)prog->n_stps * sizeof(*sout) + n_pairs * sizeof(struct encd_prog_vec) +
	      (uint64_t)prog->n_ops * sizeof(*oout) + n_ids * sizeof(__le32);
	if (len > UINT32_MAX)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_BAD_PROGRAM,
					 "%s: the program needs %llu bytes, more than %u", __func__,
					 (unsigned long long)len, UINT32_MAX);

	buf = calloc(1, len);
	if (!buf)
		return enc_no_mem(__func__);
	hdr = (struct encd_prog_header *)buf;
	hdr->magic = htole32(ENCD_PROG_MAGIC);
	hdr->version = htole16(ENCD_PROG_VERSION);
	hdr->header_size = htole16(sizeof(*hdr));
	hdr->total_size = htole32(len);
	hdr->n_groups = htole32(prog->n_groups);
	hdr->n_stps = htole32(prog->n_stps);
	hdr->n_pairs = htole32(n_pairs);
	hdr->n_ops = htole32(prog->n_ops);
	hdr->n_ids = htole32(n_ids);

	gout = (struct encd_prog_group *)(hdr + 1);
	sout = (struct encd_prog_stp *)(gout + prog->n_groups);
	w.pair_out = (struct encd_prog_vec *)(sout + prog->n_stps);
	oout = (struct encd_prog_op *)(w.pair_out + n_pairs);
	w.ids = (__le32 *)(oout + prog->n_ops);

	/* The lists in the order the kernel reads them: uapi "Programs". */
	for (i = 0; i < prog->n_groups; i++) {
		const struct enc_group *g = &prog->groups[i];
		uint32_t flags = 0;

		flags |= g->d.sendrecv ? ENCD_PROG_GROUP_SENDRECV : 0;
		flags |= g->d.nccl_mesh_supported ? ENCD_PROG_GROUP_NCCL_MESH_SUPPORTED : 0;
		flags |= g->d.must_use_ring_alg ? ENCD_PROG_GROUP_MUST_USE_RING_ALG : 0;
		gout[i].group_id = htole32(g->d.group_id);
		gout[i].rank = htole32((uint32_t)g->d.rank);
		gout[i].rank_n = htole32(g->d.rank_n);
		gout[i].src_target_pairs_id = htole32((uint32_t)g->d.src_target_pairs_id);
		gout[i].num_ops = htole32(group_num_ops(prog, g));
		gout[i].stream_id = htole32(g->d.stream_id);
		gout[i].bootstrap_rank = htole32(g->d.bootstrap_rank);
		gout[i].flags = htole32(flags);
		put_list(&w, &gout[i].participants, &g->participants);
		put_list(&w, &gout[i].bootstrap_participants, &g->bootstrap);
	}
	for (i = 0; i < prog->n_stps; i++) {
		const struct enc_stp *s = &prog->stps[i];

		sout[i].id = htole32(s->id);
		put_list(&w, &sout[i].participants, &s->participants);
		sout[i].pairs.off = htole32(w.pair_at);
		sout[i].pairs.len = htole32(s->n_pairs);
		for (j = 0; j < s->n_pairs; j++)
			put_list(&w, &w.pair_out[w.pair_at++], &s->pairs[j]);
	}
	for (i = 0; i < prog->n_ops; i++) {
		const struct enc_op_desc *op = &prog->ops[i];

		oout[i].op = htole32(op->op);
		oout[i].flags = htole32(op->stp ? ENCD_PROG_OP_STP : 0);
		oout[i].size_n = htole64(op->size_n);
		oout[i].owner = htole32(op->owner);
		oout[i].peer = htole32(op->peer);
		oout[i].dtype = htole32(op->dtype);
		oout[i].alg = htole32(op->alg);
		oout[i].channel = htole32(op->channel);
	}
	*bufp = buf;
	*lenp = len;
	return NRT_SUCCESS;
}
