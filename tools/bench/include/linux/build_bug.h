/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kmod/wire.h takes from the kernel's <linux/build_bug.h>, for
 * tools/bench/scale-model, which counts bytes with the module's own frame
 * sizes: static_assert (C11's).
 */
#ifndef _BENCH_LINUX_BUILD_BUG_H
#define _BENCH_LINUX_BUILD_BUG_H
#include <assert.h>
#endif
