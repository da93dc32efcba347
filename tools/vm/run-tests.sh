#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The selftest runner. It runs inside the test VM (run.sh), never on the
# host: it loads and unloads the encd module around every test program.
#
#   run-tests.sh --build BUILD/KVER [--selftests DIR] [--allow-skip NAME]... [NAME]...
#
# The programs are the executables named *_test in BUILD/KVER/selftests/ or
# BUILD/selftests/, and the scripts named *_test.sh in the selftests source
# directory (DIR, default selftests/ of this checkout); NAMEs pick some of
# them. For each, in name order: insmod BUILD/KVER/kmod/encd.ko with the
# parameters in DIR/NAME.modparams (one line, optional), run the program in
# DIR with the timeout from DIR/NAME.settings or DIR/settings ("timeout=N",
# default 300 seconds),
# rmmod encd, and, when the kernel has kmemleak, scan for leaks. Programs
# find the module, the build and DIR in $ENCD_KO, $ENCD_BUILD and
# $ENCD_SELFTESTS, and the lane in $ENCD_LANE (the build's name: debug-amd64
# for the debug lane, the Debian kernel's version otherwise); the fake Neuron
# driver in $NEURON_FAKE_KO.
#
# Test cases are counted from each program's top-level KTAP result lines; a
# program that crashes, times out or fails without saying which case failed
# counts as one more failure, and so do, for the program that was running:
#   - a skipped case, unless the program is one of the --allow-skip NAMEs
#     (the lane's list of the skips it expects);
#   - a failed rmmod, or a leak kmemleak finds after it (one program late:
#     see leak_scan; such a failure names both programs, and the report
#     the task that allocated what leaked);
#   - a new taint of the kernel (/proc/sys/kernel/tainted, read before and
#     after; loading an out-of-tree, unsigned module is not one), or a
#     kernel report in the log lines it added (scan-console.sh: WARN, BUG,
#     KASAN, lockdep, refcount, hung task, soft lockup, Oops, ...).
# The programs that ran are held to the ones that exist (every
# DIR/*_test.c must have been built) or were named: one that did not run is
# a failure, and so is a lane that ran none. The last line is
# "N passed, N failed[, N skipped]".
set -u
# Braces: bash reads the whole script before running it, so an edit to this
# file while it runs (for up to an hour) cannot derail it.
{

here=$(cd "$(dirname "$0")" && pwd)
build='' srcdir=$(cd "$here/../../selftests" 2>/dev/null && pwd)
declare -A allowed
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	# absolute: each program runs in it, and is named by its path
	--selftests) srcdir=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	--allow-skip) allowed[$2]=1; shift 2 ;;
	--) shift; break ;;
	-*) echo "usage: $0 --build BUILD/KVER [--selftests DIR] [--allow-skip NAME]... [NAME]..." >&2
	    exit 2 ;;
	*) break ;;
	esac
done
[ -n "$build" ] || { echo "run-tests: --build is required" >&2; exit 2; }
allowed_list=$(printf '%s\n' "${!allowed[@]}" | LC_ALL=C sort | xargs)
allowed_list=${allowed_list:-no program}
ko=$build/kmod/encd.ko
kmemleak=/sys/kernel/debug/kmemleak
# The tests' roots listen on fixed ports from 31000 to 59999; the ports the
# kernel picks for connections (and leaves in TIME_WAIT) stay above them.
echo "60000 65535" >/proc/sys/net/ipv4/ip_local_port_range
# For tests that reload the module with other parameters or read data files.
export ENCD_KO=$ko ENCD_BUILD=$build ENCD_SELFTESTS=$srcdir ENCD_LANE=${build##*/}
# The fake Neuron driver the tests of Neuron topology load (neuron_fake.mk).
export NEURON_FAKE_KO=$build/selftests/neuron_fake/neuron_fake.ko

passed=0 failed=0 skipped=0
fail() {
	echo "# FAIL: $*"
	failed=$((failed + 1))
}

# rmmod encd, for up to 5 s. Only an open /dev/encd holds the module: a
# host agent passing news on holds none, and rmmod ends it whatever its
# peers (a test's fake hosts) hold open. So it unloads at the first try,
# but for a process of the program still exiting, whose files close last.
unload_encd() {
	local tries=50
	while [ "$tries" -gt 0 ]; do
		rmmod encd 2>/dev/null && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	rmmod encd
}

# The limit a kselftest settings file sets ("timeout=N"), if it sets one.
settings_timeout() {
	sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$1" 2>/dev/null | tail -n 1
}
timeout=$(settings_timeout "$srcdir/settings")
# A run that needs longer (make soak) says so on the kernel command line.
cmdline_timeout=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^encd_test_timeout=\([0-9]\+\)$/\1/p')
ENCD_TEST_TIMEOUT=${ENCD_TEST_TIMEOUT:-$cmdline_timeout}
timeout=${ENCD_TEST_TIMEOUT:-${timeout:-300}}

# name -> path; a binary built for this kernel wins over a shared one.
declare -A tests
for f in "$srcdir"/*_test.sh "$build/../selftests"/*_test "$build/selftests"/*_test; do
	[ -f "$f" ] || continue
	case $f in *.sh) ;; *) [ -x "$f" ] || continue ;; esac
	name=$(basename "$f" .sh)
	tests[$name]=$f
done
names=("$@")
if [ $# = 0 ]; then
	# Every program that exists: a source the build did not turn into one
	# is a failure, not a program fewer.
	for f in "$srcdir"/*_test.c; do
		[ -f "$f" ] || continue
		name=$(basename "$f" .c)
		[ -n "${tests[$name]:-}" ] || fail "$name: $f was not built into $build/selftests"
	done
	mapfile -t names < <(for name in "${!tests[@]}"; do echo "$name"; done | LC_ALL=C sort)
fi
names=("${names[@]%.sh}")

# Tests may load more kernel modules; encd's own dependencies come first.
deps=$(modinfo -F depends "$ko" 2>/dev/null | tr , ' ')

# kmemleak reports an object only when two scans in a row found no reference
# to it (the first only takes its checksum) and it was more than 5 seconds
# old at the second. A scan of the debug VM takes some 13 s, so one scan
# follows each program: it is the second scan of what the program before
# allocated, and leaks are reported one program late, each naming the task
# that allocated it (comm "..."). After the last program, two.
leak_scan() {
	local start=$SECONDS wait
	echo scan >"$kmemleak"
	wait=$((start + 6 - SECONDS))
	[ $wait -le 0 ] || sleep $wait
	echo scan >"$kmemleak"
}

# Reads what the last scan reported and clears it; fails the programs that
# may have leaked it (@1: the one just run and the one before it).
leak_report() {
	local leaks who
	# debugfs files have no size: read the report to see.
	leaks=$(cat "$kmemleak")
	[ -n "$leaks" ] || return 0
	echo "$leaks"
	who=$(sed -n 's/^ *comm "\([^"]*\)".*/\1/p' <<<"$leaks" | sort -u | xargs)
	fail "kmemleak found leaks after $1 (allocated by: ${who:-?})"
	echo clear >"$kmemleak"
}

# The kernel log a record at a time (/dev/kmsg: "prio,seq,time,flags;text",
# one record per read): kmsg_next sets kmsg_new to the text of the records
# after sequence number kmsg_seq, and moves kmsg_seq on. Records the ring
# buffer dropped before they were read are lost to it, not to the console
# scan that run.sh makes of the whole boot.
kmsg_seq=-1 kmsg_new=''
kmsg_next() {
	local raw seq
	raw=$(dd if=/dev/kmsg iflag=nonblock bs=65536 status=none 2>/dev/null)
	kmsg_new=$(awk -v last="$kmsg_seq" '/^[0-9]+,[0-9]+,/ {
		split($0, h, ","); if (h[2] + 0 > last) { sub(/^[^;]*;/, ""); print } }' <<<"$raw")
	seq=$(awk '/^[0-9]+,[0-9]+,/ { split($0, h, ","); s = h[2] } END { print s + 0 }' <<<"$raw")
	[ "$seq" -le "$kmsg_seq" ] || kmsg_seq=$seq
}

# The taint flags, by bit (Documentation/admin-guide/tainted-kernels.rst).
taint_letters=PFSRMBUDAWCIOELKXTN
taint_names() {
	local mask=$1 bit out=''
	for ((bit = 0; bit < ${#taint_letters}; bit++)); do
		[ $((mask >> bit & 1)) = 0 ] || out+=${taint_letters:bit:1}
	done
	echo "${out:-?} (0x$(printf %x "$mask"))"
}
# O and E: every insmod of encd.ko sets them (out of tree, not signed).
taint_ok=$((1 << 12 | 1 << 13))
taint_seen=$(cat /proc/sys/kernel/tainted)

# What the kernel said since the last call: a new taint, a report in its log.
# Leaks are kmemleak's file's, read after each program: its log line is left
# out here.
kernel_check() {
	local when=$1 taint new report
	taint=$(cat /proc/sys/kernel/tainted)
	new=$((taint & ~taint_seen & ~taint_ok))
	taint_seen=$taint
	[ "$new" = 0 ] || fail "kernel: tainted $when: $(taint_names "$new")"
	kmsg_next
	if ! report=$(grep -v 'kmemleak: .*new suspected memory leak' <<<"$kmsg_new" |
			"$here/scan-console.sh" /dev/stdin); then
		echo "$report"
		fail "kernel: $(grep -c '^--- kernel problem' <<<"$report") report(s) in the log $when"
	fi
}

# Only leaks found after this point are ours: forget what the boot left.
if [ -w "$kmemleak" ]; then
	leak_scan
	echo clear >"$kmemleak"
fi
# The boot's log is the console scan's; ours starts here.
kmsg_next

ran=() prev=''
declare -A notrun	# name -> why it did not run
for name in "${names[@]}"; do
	prog=${tests[$name]:-}
	if [ -z "$prog" ]; then
		notrun[$name]="there is no such program"
		continue
	fi
	echo "# ---- $name"
	began=$SECONDS
	kernel_check "before $name"

	grep -q '^encd ' /proc/modules && unload_encd
	for d in $deps; do
		modprobe "$d"
	done
	params=$(head -n 1 "$srcdir/$name.modparams" 2>/dev/null)
	# $params is split on purpose: "a=1 b=2" are two parameters.
	# shellcheck disable=SC2086
	if ! insmod "$ko" $params; then
		notrun[$name]="insmod encd failed"
		continue
	fi

	# A program may have a limit of its own, in DIR/NAME.settings.
	limit=$(settings_timeout "$srcdir/$name.settings")
	limit=${ENCD_TEST_TIMEOUT:-${limit:-$timeout}}

	log=/tmp/$name.log
	run=("$prog")
	[ -x "$prog" ] || run=(bash "$prog")
	# In a session of its own, its output to a file rather than a pipe: a
	# process it leaves behind can then neither hold the runner (a pipe
	# that never closes) nor hide (it is still in the session).
	: >"$log"
	(cd "$srcdir" && exec setsid -w timeout -k 10 "$limit" "${run[@]}") >"$log" 2>&1 &
	pid=$!
	tail -n +1 -f --pid="$pid" "$log" 2>/dev/null
	wait "$pid"
	rc=$?
	ran+=("$name")
	left=$(pgrep -s "$pid" -a || true)
	if [ -n "$left" ]; then
		echo "$left" | sed 's/^/#   left: /'
		pkill -KILL -s "$pid" || true
		fail "$name left processes behind"
	fi

	# Top-level KTAP lines only: subtests are indented or behind "# ".
	ok=$(grep -cE '^ok [0-9]+' "$log")
	skip=$(grep -ciE '^ok [0-9]+.*# *skip' "$log")
	notok=$(grep -cE '^not ok [0-9]+' "$log")
	plan=$(sed -n 's/^1\.\.\([0-9]\+\).*/\1/p' "$log" | head -n 1)
	if [ $((ok + notok)) = 0 ]; then
		# Not a KTAP program, or a KTAP one that planned nothing: the
		# exit status is the one result (4 is kselftest's "skip").
		case $rc in
		0) ok=1 ;;
		4) ok=1 skip=1 ;;
		esac
	fi
	passed=$((passed + ok - skip))
	skipped=$((skipped + skip))
	failed=$((failed + notok))

	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		fail "$name timed out after ${limit}s"
	elif [ "$rc" -gt 128 ]; then
		fail "$name was killed by signal $((rc - 128))"
	elif [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$notok" = 0 ]; then
		fail "$name exited with status $rc"
	elif [ -n "$plan" ] && [ $((ok + notok)) -lt "$plan" ]; then
		fail "$name planned $plan tests but reported $((ok + notok))"
	fi
	if [ "$skip" != 0 ] && [ -z "${allowed[$name]:-}" ]; then
		grep -iE '# *skip' "$log" | sed 's/^/#   /'
		fail "$name skipped $skip test(s); this lane allows skips only in: $allowed_list"
	fi

	unload_encd || fail "rmmod encd failed after $name"

	if [ -w "$kmemleak" ]; then
		echo scan >"$kmemleak"
		leak_report "${prev:+$prev or }$name"
	fi
	prev=$name
	kernel_check "during $name"
	# What each program costs the lane, its leak scans included.
	echo "# $name: $((SECONDS - began))s in all"
done

# The last program's leaks: two scans more.
if [ -w "$kmemleak" ] && [ -n "${prev:-}" ]; then
	leak_scan
	leak_report "$prev"
	kernel_check "after the last program"
fi

# The programs that were to run, against those that did.
for name in "${names[@]}"; do
	[ -z "${notrun[$name]:-}" ] || fail "$name did not run: ${notrun[$name]}"
done
[ ${#ran[@]} -gt 0 ] ||
	fail "no selftest program ran (none in $build/selftests, $build/../selftests or $srcdir)"
echo "# ran ${#ran[@]} of ${#names[@]} programs; skips allowed in: $allowed_list"

summary="$passed passed, $failed failed"
[ "$skipped" = 0 ] || summary+=", $skipped skipped"
echo "$summary"
[ "$failed" = 0 ]
exit
}
