/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels encd builds against (Debian's 6.1 and 6.12),
 * in one place. Code elsewhere uses the newer interface.
 */
#ifndef _ENCD_COMPAT_H
#define _ENCD_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>

#if KERNEL_VERSION(6, 3, 0) > LINUX_VERSION_CODE
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * The attributes of a dump request: since 6.6 dumps get a struct genl_info,
 * before that a struct genl_dumpit_info with the attributes alone.
 */
#include <net/genetlink.h>

static inline struct nlattr **encd_genl_dump_attrs(struct netlink_callback *cb)
{
#if KERNEL_VERSION(6, 6, 0) > LINUX_VERSION_CODE
	return genl_dumpit_info(cb)->attrs;
#else
	return genl_info_dump(cb)->attrs;
#endif
}

#endif /* _ENCD_COMPAT_H */
