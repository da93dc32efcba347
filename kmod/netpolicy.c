// SPDX-License-Identifier: GPL-2.0
/*
 * The networks encd may use: the module parameter networks, a comma list
 * of IPv4 and IPv6 prefixes an administrator sets (at load, or at any
 * time through /sys/module/encd/parameters), and the one predicate every
 * address encd dials, accepts or announces passes, encd_addr_allowed().
 * It is what collective libraries' *_SOCKET_IFNAME settings are for, by
 * address rather than by interface: a world's root, or a member acting as
 * one, names the addresses other hosts call (the root address, the
 * table's), and without it a root could make every kernel host of its
 * world open a connection, and send its HELLO, wherever it chose.
 *
 * Empty (the default) means no restriction. A loopback address is allowed
 * to a world whose root is on loopback, whatever the list says: such a
 * world never leaves the host (its hosts listen on the address they reach
 * the root from, loopback too). In a world whose root is off loopback no
 * host listens on loopback, so there a loopback address must be listed
 * like any other: a root could otherwise make the kernel call this
 * machine's own services.
 *
 * Readers take the list under RCU; a new value is parsed whole into a new
 * list before it replaces the old one, so nobody sees half of one, and a
 * value that does not parse is refused, the old one staying.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "encd_private.h"

/* Prefixes a list may hold, and the longest value taken. */
#define NETWORKS_MAX		16
#define NETWORKS_VALUE_MAX	1024
/* An IPv6 prefix as text: 39 characters of address, "/128", a comma. */
#define NETWORKS_TEXT_MAX	(NETWORKS_MAX * 44 + 1)

/* One prefix; an IPv4 one as its IPv4-mapped IPv6 prefix (len 96 + n). */
struct net_prefix {
	struct in6_addr addr;
	u8 len;
};

struct encd_networks {
	struct rcu_head rcu;
	u32 n;
	struct net_prefix p[NETWORKS_MAX];
	char text[NETWORKS_TEXT_MAX];	/* as encd shows it: "10.0.0.0/8,fd00::/8" */
};

/* NULL: no restriction. Replaced under networks_lock; read under RCU. */
static struct encd_networks __rcu *networks;
static DEFINE_MUTEX(networks_lock);

/**
 * encd_addr_is_loopback() - whether an address is this host's loopback
 * @ss: the address
 *
 * Return: whether it is in 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104.
 */
bool encd_addr_is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ipv4_is_loopback(((const struct sockaddr_in *)ss)->sin_addr.s_addr);
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		return ipv6_addr_loopback(a) ||
		       (ipv6_addr_v4mapped(a) && ipv4_is_loopback(a->s6_addr32[3]));
	}
	return false;
}

/* An address as an IPv6 one (IPv4 mapped), to match against prefixes. */
static bool addr_as_v6(const struct sockaddr_storage *ss, struct in6_addr *a)
{
	if (ss->ss_family == AF_INET6) {
		*a = ((const struct sockaddr_in6 *)ss)->sin6_addr;
		return true;
	}
	if (ss->ss_family == AF_INET) {
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)ss)->sin_addr.s_addr, a);
		return true;
	}
	return false;
}

/**
 * encd_addr_allowed() - whether encd may use an address
 * @ss: the address: one to call, one that called, one a host announced
 * @root: the root address of the world it is for
 *
 * Return: whether the networks parameter is empty, lists a prefix that
 * holds @ss, or @ss and @root are both loopback addresses.
 */
bool encd_addr_allowed(const struct sockaddr_storage *ss, const struct sockaddr_storage *root)
{
	const struct encd_networks *nw;
	struct in6_addr a;
	bool ok;
	u32 i;

	if (encd_addr_is_loopback(ss) && encd_addr_is_loopback(root))
		return true;
	rcu_read_lock();
	nw = rcu_dereference(networks);
	ok = !nw;
	if (nw && addr_as_v6(ss, &a))
		for (i = 0; i < nw->n && !ok; i++)
			ok = ipv6_prefix_equal(&a, &nw->p[i].addr, nw->p[i].len);
	rcu_read_unlock();
	return ok;
}

/**
 * encd_networks_show() - the networks parameter, for a sentence
 * @out: where
 * @size: its size; a longer list is cut, ending in "..."
 */
void encd_networks_show(char *out, size_t size)
{
	const struct encd_networks *nw;

	rcu_read_lock();
	nw = rcu_dereference(networks);
	if (strscpy(out, nw ? nw->text : "", size) < 0 && size > 4)
		strcpy(out + size - 4, "...");
	rcu_read_unlock();
}

/**
 * encd_networks_dup() - the networks parameter, whole
 *
 * Return: a copy the caller frees ("" for any address), or NULL when out
 * of memory.
 */
char *encd_networks_dup(void)
{
	const struct encd_networks *nw;
	char *s;

	/* The writers' lock, not RCU's: the copy may sleep. */
	mutex_lock(&networks_lock);
	nw = rcu_dereference_protected(networks, lockdep_is_held(&networks_lock));
	s = kstrdup(nw ? nw->text : "", GFP_KERNEL);
	mutex_unlock(&networks_lock);
	return s;
}

/* Parses one prefix, "ADDR" or "ADDR/LEN", into @p; says why not. */
static int prefix_parse(char *s, struct net_prefix *p, const char *value)
{
	char *slash = strchr(s, '/');
	unsigned int len, max, off;
	struct in6_addr masked;
	const char *end;
	__be32 a4;

	if (slash)
		*slash = '\0';
	if (strchr(s, ':')) {
		if (!in6_pton(s, -1, p->addr.s6_addr, -1, &end) || *end)
			goto not_prefix;
		max = 128;
		off = 0;
	} else {
		if (!in4_pton(s, -1, (u8 *)&a4, -1, &end) || *end)
			goto not_prefix;
		ipv6_addr_set_v4mapped(a4, &p->addr);
		max = 32;
		off = 96;
	}
	len = max;
	if (slash && (kstrtouint(slash + 1, 10, &len) || len > max)) {
		pr_warn("networks=%s refused: %s/%s: the length of an IPv%u prefix is 0 to %u\n",
			value, s, slash + 1, max == 32 ? 4 : 6, max);
		return -EINVAL;
	}
	p->len = off + len;
	ipv6_addr_prefix(&masked, &p->addr, p->len);
	if (!ipv6_addr_equal(&masked, &p->addr)) {
		pr_warn("networks=%s refused: %s/%u has bits set past its prefix length\n",
			value, s, len);
		return -EINVAL;
	}
	return 0;
not_prefix:
	if (slash)
		*slash = '/';
	pr_warn("networks=%s refused: \"%s\" is not a numeric IPv4 or IPv6 address (a prefix is ADDR or ADDR/LEN)\n",
		value, s);
	return -EINVAL;
}

/* Appends @p to the list's text, as encd shows it. */
static void prefix_show(struct encd_networks *nw, const struct net_prefix *p)
{
	size_t used = strlen(nw->text);
	char *at = nw->text + used;
	size_t left = sizeof(nw->text) - used;

	if (ipv6_addr_v4mapped(&p->addr) && p->len >= 96)
		scnprintf(at, left, "%s%pI4/%u", used ? "," : "", &p->addr.s6_addr32[3],
			  p->len - 96);
	else
		scnprintf(at, left, "%s%pI6c/%u", used ? "," : "", &p->addr, p->len);
}

/* Parses a whole value into @nw: every prefix, or -EINVAL and why. */
static int networks_parse(const char *val, struct encd_networks *nw)
{
	char *copy, *shown, *value, *rest, *item;
	int err = 0;

	if (strnlen(val, NETWORKS_VALUE_MAX + 1) > NETWORKS_VALUE_MAX) {
		pr_warn("networks refused: a value is at most %u characters\n",
			NETWORKS_VALUE_MAX);
		return -EINVAL;
	}
	copy = kstrdup(val, GFP_KERNEL);
	shown = kstrdup(val, GFP_KERNEL);
	if (!copy || !shown) {
		err = -ENOMEM;
		goto out;
	}
	/* For the warnings: the value as given, but its newline (echo's). */
	value = strim(shown);
	rest = strim(copy);
	if (!*rest)
		goto out;	/* no restriction */
	while ((item = strsep(&rest, ",")) != NULL) {
		item = strim(item);
		if (!*item) {
			pr_warn("networks=%s refused: an empty item (the prefixes are separated by single commas)\n",
				value);
			err = -EINVAL;
			break;
		}
		if (nw->n == NETWORKS_MAX) {
			pr_warn("networks=%s refused: more than %u prefixes\n", value,
				NETWORKS_MAX);
			err = -EINVAL;
			break;
		}
		err = prefix_parse(item, &nw->p[nw->n], value);
		if (err)
			break;
		prefix_show(nw, &nw->p[nw->n]);
		nw->n++;
	}
out:
	kfree(copy);
	kfree(shown);
	return err;
}

static int networks_set(const char *val, const struct kernel_param *kp)
{
	struct encd_networks *nw, *old;
	int err;

	nw = kzalloc(sizeof(*nw), GFP_KERNEL);
	if (!nw)
		return -ENOMEM;
	err = networks_parse(val, nw);
	if (err) {
		kfree(nw);
		return err;
	}
	if (!nw->n) {
		kfree(nw);
		nw = NULL;
	}
	mutex_lock(&networks_lock);
	old = rcu_replace_pointer(networks, nw, lockdep_is_held(&networks_lock));
	mutex_unlock(&networks_lock);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

static int networks_get(char *buffer, const struct kernel_param *kp)
{
	const struct encd_networks *nw;
	int n;

	rcu_read_lock();
	nw = rcu_dereference(networks);
	n = scnprintf(buffer, PAGE_SIZE, "%s\n", nw ? nw->text : "");
	rcu_read_unlock();
	return n;
}

/* Once the module is gone: nobody reads the list any more. */
static void networks_free(void *arg)
{
	kfree(rcu_dereference_protected(networks, 1));
	RCU_INIT_POINTER(networks, NULL);
}

static const struct kernel_param_ops networks_ops = {
	.set = networks_set,
	.get = networks_get,
	.free = networks_free,
};

module_param_cb(networks, &networks_ops, NULL, 0644);
MODULE_PARM_DESC(networks,
		 "The networks encd may dial, accept and announce: comma-separated IPv4 and IPv6 prefixes, e.g. 10.0.0.0/8,fd00::/8 (default empty: any; loopback is always allowed to a world whose root is on loopback)");
