// SPDX-License-Identifier: GPL-2.0
/*
 * The rule of every frame type, in one table: its name, the links that
 * accept it, whether it opens a link, and the lengths it may have.
 *
 * link.c asks it of a frame's header before the payload is read
 * (encd_wire_len_ok(), and encd_host_accepts() in frames.c, which says
 * which way a link goes); frames.c asks it whether a frame may open a
 * link (encd_wire_opens()). Nothing else says which frame goes where.
 */
#include "encd_private.h"

#define ROUTED(body)	(sizeof(struct encd_wire_route) + (body))

static const struct encd_wire_rule frame_rules[ENCD_WIRE_NTYPES] = {
	[ENCD_WIRE_HELLO] = { "HELLO", ENCD_WAY_HANDSHAKE, false,
			      sizeof(struct encd_wire_hello), sizeof(struct encd_wire_hello) },
	[ENCD_WIRE_CHALLENGE] = { "CHALLENGE", ENCD_WAY_HANDSHAKE, false,
				  sizeof(struct encd_wire_challenge),
				  sizeof(struct encd_wire_challenge) },
	[ENCD_WIRE_PROOF] = { "PROOF", ENCD_WAY_HANDSHAKE, false,
			      sizeof(struct encd_wire_proof), sizeof(struct encd_wire_proof) },
	[ENCD_WIRE_JOIN] = { "JOIN", ENCD_WAY_TO_ROOT, true,
			     sizeof(struct encd_wire_join), sizeof(struct encd_wire_join) },
	[ENCD_WIRE_REGISTER] = { "REGISTER", ENCD_WAY_TO_ROOT, false,
				 sizeof(struct encd_wire_register) + sizeof(struct encd_wire_rank),
				 sizeof(struct encd_wire_register) +
				 ENCD_REGISTER_MAX * sizeof(struct encd_wire_rank) },
	[ENCD_WIRE_REJECT] = { "REJECT", ENCD_WAY_FROM_ROOT, false,
			       sizeof(struct encd_wire_reject),
			       sizeof(struct encd_wire_reject) + ENCD_TEXT_MAX },
	[ENCD_WIRE_TABLE] = { "TABLE", ENCD_WAY_FROM_ROOT | ENCD_WAY_DATA, false,
			      1, ENCD_TABLE_PART_MAX },
	[ENCD_WIRE_DEATH] = { "DEATH", ENCD_WAY_TO_ROOT | ENCD_WAY_FROM_ROOT | ENCD_WAY_DATA,
			      false, sizeof(struct encd_wire_death),
			      sizeof(struct encd_wire_death) + ENCD_TEXT_MAX },
	[ENCD_WIRE_LINK] = { "LINK", ENCD_WAY_DATA, true,
			     sizeof(struct encd_wire_link), sizeof(struct encd_wire_link) },
	[ENCD_WIRE_SIG] = { "SIG", ENCD_WAY_DATA, false,
			    ROUTED(sizeof(struct encd_wire_sig)),
			    ROUTED(sizeof(struct encd_wire_sig)) },
	[ENCD_WIRE_UID] = { "UID", ENCD_WAY_DATA, false,
			    ROUTED(ENCD_WIRE_UID_LEN), ROUTED(ENCD_WIRE_UID_LEN) },
	[ENCD_WIRE_RING] = { "RING", ENCD_WAY_DATA, false,
			     ROUTED(ENCD_WIRE_RING_LEN), ROUTED(ENCD_WIRE_RING_LEN) },
	[ENCD_WIRE_BARRIER] = { "BARRIER", ENCD_WAY_DATA, false,
				ROUTED(ENCD_WIRE_BARRIER_LEN), ROUTED(ENCD_WIRE_BARRIER_LEN) },
	[ENCD_WIRE_WELCOME] = { "WELCOME", ENCD_WAY_HANDSHAKE, false, 0, 0 },
	[ENCD_WIRE_DIGEST] = { "DIGEST", ENCD_WAY_FROM_ROOT, false,
			       sizeof(struct encd_wire_digest), sizeof(struct encd_wire_digest) },
	[ENCD_WIRE_DEPART] = { "DEPART", ENCD_WAY_TO_ROOT | ENCD_WAY_FROM_ROOT | ENCD_WAY_DATA,
			       false, sizeof(struct encd_wire_depart_block) +
			       sizeof(struct encd_wire_depart_run), ENCD_WIRE_DEPART_MAX },
};

static const struct encd_wire_rule *rule(u8 type)
{
	return type && type < ENCD_WIRE_NTYPES ? &frame_rules[type] : NULL;
}

/**
 * encd_wire_type_name() - a frame type's name, for sentences
 * @type: enum encd_wire_type, or anything a peer sent
 *
 * Return: the name, or "an unknown frame".
 */
const char *encd_wire_type_name(u8 type)
{
	return rule(type) ? rule(type)->name : "an unknown frame";
}

/**
 * encd_wire_goes() - whether a link that goes @way carries a frame type
 * @type: enum encd_wire_type, or anything a peer sent
 * @way: one enum encd_wire_way, or 0 (a link that carries nothing)
 *
 * Return: whether it does.
 */
bool encd_wire_goes(u8 type, unsigned int way)
{
	return rule(type) && (rule(type)->ways & way);
}

/**
 * encd_wire_opens() - whether a frame type is one that opens a link
 * @type: enum encd_wire_type
 *
 * JOIN and LINK say who is calling: a link's first frame after its
 * handshake is one of them, and no later frame is.
 *
 * Return: whether it is.
 */
bool encd_wire_opens(u8 type)
{
	return rule(type) && rule(type)->opens;
}

/**
 * encd_wire_len_ok() - whether a frame type may have a payload of @len bytes
 * @type: enum encd_wire_type, or anything a peer sent
 * @len: the length its header says
 *
 * No frame's largest length grows with the world: a table comes in parts.
 *
 * Return: whether it may.
 */
bool encd_wire_len_ok(u8 type, u32 len)
{
	const struct encd_wire_rule *r = rule(type);

	return r && len >= r->min && len <= r->max;
}
