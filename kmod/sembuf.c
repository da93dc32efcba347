// SPDX-License-Identifier: GPL-2.0
/*
 * The semaphore-increment value buffer of a global comm.
 *
 * The device adds the value at index n to a semaphore to increment it by n,
 * so the buffer is a table: entry 0 is the header 0x10000, entry n is n for
 * n = 1..128 (ENCD_SEM_VALUES_N entries, 516 bytes). libnrt builds it with
 * a 4-lane SSE store of a starting vector stepped by 4; we read that vector
 * as {1, 2, 3, 4} (Documentation/assumptions.rst).
 *
 * The table lives in its own zeroed page so that it can be mapped into user
 * space read-only. A mapping holds its own reference on the page, so it stays
 * valid after the comm that owned the page is gone.
 */
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/encd.h>

#include "compat.h"
#include "encd_private.h"

/**
 * encd_sembuf_alloc() - a new semaphore-increment value buffer
 *
 * Return: its page, filled in, or NULL when out of memory.
 */
struct page *encd_sembuf_alloc(void)
{
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	u32 *values;
	int i;

	if (!page)
		return NULL;

	values = page_address(page);
	values[0] = ENCD_SEM_VALUES_HEADER;
	for (i = 1; i < ENCD_SEM_VALUES_N; i++)
		values[i] = i;
	return page;
}

/**
 * encd_sembuf_free() - drops the comm's reference to its buffer
 * @page: the buffer, or NULL; mappings keep their own references
 */
void encd_sembuf_free(struct page *page)
{
	if (page)
		put_page(page);
}

/**
 * encd_sembuf_mmap() - maps a buffer read-only into user space
 * @page: the buffer
 * @vma: the mapping: one page, without write access, ever
 *
 * Return: 0, -EPERM for a writable mapping, -EINVAL for a wrong size.
 */
int encd_sembuf_mmap(struct page *page, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;

	/* Read-only for good: a later mprotect(PROT_WRITE) must fail too. */
	vm_flags_clear(vma, VM_MAYWRITE);
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return vm_insert_page(vma, vma->vm_start, page);
}
