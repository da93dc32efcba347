/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_SIGNATURE_H
#define _ENCD_SIGNATURE_H

#include <linux/types.h>

struct encd_ucmd;
struct enc_program;

/*
 * The seed's enc_calculate_signature: the two-level MD5 op-signature of
 * @prog (Documentation/signature.rst), stored in each hashed group and stp
 * and in the program. @flags: ENCD_SIG_ALL_GROUPS. Only in the PARSE state;
 * otherwise -EINVAL, "cannot calculate CC signature: not in parse state".
 * The caller holds the lock that guards @prog.
 */
int enc_calculate_signature(struct encd_ucmd *ucmd, struct enc_program *prog, u32 flags);

/*
 * Lays out the bytes every group's and stp's level-1 digest covers, once,
 * for a parsed program: they depend only on the program and this rank's
 * global device id, both fixed at load. 0 or -ENOMEM.
 */
int enc_signature_prepare(struct enc_program *prog);

int enc_signature_init(void);
void enc_signature_exit(void);

#endif /* _ENCD_SIGNATURE_H */
