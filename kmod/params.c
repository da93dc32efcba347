// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters of worlds, and the one way each is read: the
 * deadline of an operation, whether ranks of this host hand messages over
 * inside the module, whether a world off loopback may form without a
 * secret, which group's members share loopback worlds (and global comms),
 * and how many global comms one user may hold. The administrator may
 * change them at any time (0644); a reader
 * takes each value once, when it decides.
 */
#include <linux/cred.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/uidgid.h>

#include "encd_private.h"

static unsigned int bootstrap_timeout_ms = 60000;
module_param(bootstrap_timeout_ms, uint, 0644);
MODULE_PARM_DESC(bootstrap_timeout_ms,
		 "Deadline of one bootstrap operation in milliseconds (default 60000, 1 to 86400000)");

static bool local_delivery = true;
module_param(local_delivery, bool, 0644);
MODULE_PARM_DESC(local_delivery,
		 "Hand messages between ranks of this host over inside the module (default Y); N sends every message through TCP");

static bool allow_insecure_worlds;
module_param(allow_insecure_worlds, bool, 0644);
MODULE_PARM_DESC(allow_insecure_worlds,
		 "Let worlds whose root is not on loopback form without a world secret (default N: refused)");

static int loopback_group = -1;
module_param(loopback_group, int, 0644);
MODULE_PARM_DESC(loopback_group,
		 "A group (id) whose members share loopback worlds (default -1: a loopback world is its user's alone)");

static unsigned int max_comms_per_user;
module_param(max_comms_per_user, uint, 0644);
MODULE_PARM_DESC(max_comms_per_user,
		 "The most global comms one user may hold at once (default 0: no cap, one user may hold every core)");

/*
 * A host whose ranks all left passes news on while ranks of its subtree
 * stay (host.c): a job's end takes seconds, so its news is through well
 * before this; after it, the host ends as if no news could come. No file
 * holds such a host, so this and the bounds below are all that do.
 */
static unsigned int forwarding_timeout_ms = 30000;
module_param(forwarding_timeout_ms, uint, 0644);
MODULE_PARM_DESC(forwarding_timeout_ms,
		 "How long a host whose ranks all left may pass news on, in milliseconds (default 30000, 1 to 86400000)");

static unsigned int forwarding_hosts_max = 16;
module_param(forwarding_hosts_max, uint, 0644);
MODULE_PARM_DESC(forwarding_hosts_max,
		 "Hosts whose ranks all left that may pass news on at once (default 16; past it, the oldest ends)");

static unsigned int forwarding_hosts_per_user = 4;
module_param(forwarding_hosts_per_user, uint, 0644);
MODULE_PARM_DESC(forwarding_hosts_per_user,
		 "Of those, made by one user's ranks (default 4; past it, that user's oldest ends)");

#define TIMEOUT_MAX_MS	(24U * 3600 * 1000)

/**
 * encd_timeout_ms() - the deadline of an operation, in milliseconds
 * @asked: what the caller asked for, 0 for the default
 * @dflt: the default (0: the module parameter's)
 *
 * Every deadline a caller gives is clamped to the parameter's range.
 *
 * Return: 1 .. 86400000.
 */
u32 encd_timeout_ms(u32 asked, u32 dflt)
{
	u32 t = asked ?: dflt ?: READ_ONCE(bootstrap_timeout_ms);

	return clamp_t(u32, t, 1, TIMEOUT_MAX_MS);
}

/**
 * encd_local_delivery() - whether local ranks may skip TCP
 *
 * Return: whether messages between ranks of this host are handed over
 * inside the module.
 */
bool encd_local_delivery(void)
{
	return READ_ONCE(local_delivery);
}

/**
 * encd_allow_insecure_worlds() - what the administrator allowed
 *
 * Return: whether a world off loopback may form without a secret.
 */
bool encd_allow_insecure_worlds(void)
{
	return READ_ONCE(allow_insecure_worlds);
}

/**
 * encd_loopback_group() - the group whose members share loopback worlds
 *
 * Return: the group, in the initial user namespace; INVALID_GID when none.
 */
kgid_t encd_loopback_group(void)
{
	int gid = READ_ONCE(loopback_group);

	return gid < 0 ? INVALID_GID : make_kgid(&init_user_ns, gid);
}

/**
 * encd_max_comms_per_user() - how many global comms one user may hold
 *
 * Return: the cap, 0 for none.
 */
unsigned int encd_max_comms_per_user(void)
{
	return READ_ONCE(max_comms_per_user);
}

/**
 * encd_forwarding_timeout_ms() - how long a host without ranks may pass news on
 *
 * Return: 1 .. 86400000 milliseconds.
 */
u32 encd_forwarding_timeout_ms(void)
{
	return clamp_t(u32, READ_ONCE(forwarding_timeout_ms), 1, TIMEOUT_MAX_MS);
}

/**
 * encd_forwarding_hosts_max() - how many hosts without ranks may pass news on
 *
 * Return: the bound for the module.
 */
u32 encd_forwarding_hosts_max(void)
{
	return READ_ONCE(forwarding_hosts_max);
}

/**
 * encd_forwarding_hosts_per_user() - how many of those one user's ranks may leave
 *
 * Return: the bound for one user.
 */
u32 encd_forwarding_hosts_per_user(void)
{
	return READ_ONCE(forwarding_hosts_per_user);
}
