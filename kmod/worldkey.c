// SPDX-License-Identifier: GPL-2.0
/*
 * The world key of a SETUP: what makes ranks of this kernel the same
 * world's (struct encd_world_key), and which key authenticates the world's
 * links: the ranks' secret, this kernel's own for a world on loopback, or
 * none where the administrator allows it. auth.c derives the key itself.
 *
 * A loopback world is its owner's: the key binds the user of the process
 * that sets a rank up, or the loopback_group when that process is in it.
 * Another user's rank has another key: its host fails the handshake with
 * the root, and cannot join, nor fail the world.
 */
#include <linux/cred.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <net/ipv6.h>

#include "encd_private.h"

/* Whose a loopback world the caller sets up is: its group's, or its user's. */
static void loopback_owner(__be32 owner[2])
{
	kgid_t gid = encd_loopback_group();

	if (gid_valid(gid) && in_egroup_p(gid)) {
		owner[0] = cpu_to_be32('g');
		owner[1] = cpu_to_be32(from_kgid(&init_user_ns, gid));
	} else {
		owner[0] = cpu_to_be32('u');
		owner[1] = cpu_to_be32(from_kuid(&init_user_ns, current_euid()));
	}
}

/**
 * encd_world_key_setup() - the world key a SETUP asks for
 * @ucmd: the SETUP command
 * @g: the comm being set up
 * @cmd: the command's arguments
 * @wk: out: the key; the caller wipes it when done
 *
 * Return: 0 or a negative errno, with the sentence in @ucmd.
 */
int encd_world_key_setup(struct encd_ucmd *ucmd, struct encd_gcomm *g,
			 const struct encd_setup_global_comm *cmd, struct encd_world_key *wk)
{
	u8 secret[ENCD_WORLD_SECRET_MAX];
	enum encd_key_kind kind;
	__be32 owner[2];
	int err;

	memset(wk, 0, sizeof(*wk));
	wk->net = g->net;
	wk->world_size = g->g_device_cnt;
	wk->solo = (cmd->head.flags & ENCD_SETUP_FORCE_TCP) || !encd_local_delivery() ?
		   g->g_device_id : U32_MAX;
	if (wk->world_size > ENCD_WORLD_MAX)
		return encd_fail(ucmd, -EINVAL, "A world of %u ranks is larger than %u",
				 wk->world_size, ENCD_WORLD_MAX);
	if (encd_addr_parse(g->root_comm_id, &wk->root) && wk->world_size > 1)
		return encd_fail(ucmd, -EINVAL,
				 "root_comm_id \"%s\" is not host:port (a numeric IPv4 address, [IPv6] or localhost)",
				 g->root_comm_id);
	if (wk->world_size > 1 && !encd_addr_allowed(&wk->root, &wk->root)) {
		char nets[ENCD_NETWORKS_SHOWN];

		encd_networks_show(nets, sizeof(nets));
		return encd_fail_why(ucmd, -EACCES, ENCD_REASON_ADDRESS,
				     "root_comm_id %s is outside the networks encd may use: networks=%s (a parameter of the encd module)",
				     g->root_comm_id, nets);
	}
	if (cmd->secret_len > sizeof(secret))
		return encd_fail(ucmd, -EINVAL, "A world secret is at most %u bytes, not %u",
				 ENCD_WORLD_SECRET_MAX, cmd->secret_len);
	if (cmd->secret_len) {
		if (copy_from_user(secret, u64_to_user_ptr(cmd->secret_uptr), cmd->secret_len))
			return -EFAULT;
		kind = ENCD_KEY_SECRET;
	} else if (wk->world_size == 1 || encd_addr_is_loopback(&wk->root)) {
		kind = ENCD_KEY_LOOPBACK;
		loopback_owner(owner);
	} else if (encd_allow_insecure_worlds()) {
		kind = ENCD_KEY_INSECURE;
	} else {
		return encd_fail(ucmd, -EINVAL,
				 "root_comm_id %s is not a loopback address and the world has no secret: give every rank the same secret (ENC_WORLD_SECRET, or encctl --secret-file) or load encd with allow_insecure_worlds=1",
				 g->root_comm_id);
	}
	err = encd_auth_world_key(kind, secret, cmd->secret_len, owner, wk->key);
	memzero_explicit(secret, sizeof(secret));
	if (err)
		return encd_fail_why(ucmd, err, ENCD_REASON_INTERNAL, "Cannot derive the world key (%d)",
				     err);
	return 0;
}
