/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_SEMBUF_H
#define _ENCD_SEMBUF_H

struct page;
struct vm_area_struct;

struct page *enc_sembuf_alloc(void);
void enc_sembuf_free(struct page *page);
int enc_sembuf_mmap(struct page *page, struct vm_area_struct *vma);

#endif /* _ENCD_SEMBUF_H */
