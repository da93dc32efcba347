/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels encd builds against (Debian's 6.1 and 6.12),
 * in one place. Code elsewhere uses the newer interface.
 */
#ifndef _ENCD_COMPAT_H
#define _ENCD_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

#endif /* _ENCD_COMPAT_H */
