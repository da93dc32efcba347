#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Finds kernel problems in a kernel log (a VM's console, or the lines one
# test program added, from run-tests.sh): WARN, BUG, oops, KASAN, UBSAN,
# lockdep, kmemleak, refcount, hung task, soft lockup and RCU stall reports.
# Prints each with its context, under a "--- kernel problem N" header, and
# exits 1 if there was any.
#
#   scan-console.sh LOG
set -eu

[ $# -eq 1 ] || { echo "usage: $0 LOG" >&2; exit 2; }

# A report begins with one of these lines...
head='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|KASAN:|UBSAN:'
head+='|possible circular locking|INFO: possible|INFO: task .* blocked'
head+='|INFO: trying to register non-static key|inconsistent lock state'
head+='|kmemleak:.*new suspected|refcount_t:|Kernel panic|rcu: INFO: .*stall'
# ...and a "Call Trace" far from any such line is a report of its own (a
# stack dump the patterns above do not name), unless the fault-injection
# framework just said it forced a failure, or the OOM killer that it was
# invoked: the debug lane's fail-nth and socket fault tests ask for those
# dumps, and hostile_test's rank in a small memory cgroup for the OOM
# killer's.
awk -v head="$head" '
	{ sub(/\r$/, "") }
	function report(first) {
		n++
		printf "--- kernel problem %d\n", n
		for (i = first; i < NR; i++)
			print ring[i % 8]
		left = 60
		last = NR
	}
	$0 ~ head { report(NR) }
	/FAULT_INJECTION: forcing a failure|invoked oom-killer:/ { injected = NR }
	/Call Trace/ && (last == 0 || NR - last > 300) && !(injected && NR - injected < 8) {
		report(NR > 5 ? NR - 5 : 1)
	}
	left > 0 { print; left--; if (/---\[ end trace/) left = 0 }
	{ ring[NR % 8] = $0 }
	END { exit (n > 0) }
' "$1"
