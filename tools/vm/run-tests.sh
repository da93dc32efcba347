#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The selftest runner. It runs inside the test VM (run.sh), never on the
# host: it loads and unloads the encd module around every test program.
#
#   run-tests.sh --build BUILD/KVER [--selftests DIR] [NAME]...
#
# The programs are the executables named *_test in BUILD/KVER/selftests/ or
# BUILD/selftests/, and the scripts named *_test.sh in the selftests source
# directory (DIR, default selftests/ of this checkout); NAMEs pick some of
# them. For each, in name order: insmod BUILD/KVER/kmod/encd.ko with the
# parameters in DIR/NAME.modparams (one line, optional), run the program in
# DIR with the timeout from DIR/settings ("timeout=N", default 300 seconds),
# rmmod encd, and, when the kernel has kmemleak, scan for leaks. Programs
# find the module, the build and DIR in $ENCD_KO, $ENCD_BUILD and
# $ENCD_SELFTESTS, and the lane in $ENCD_LANE (the build's name: debug-amd64
# for the debug lane, the Debian kernel's version otherwise).
#
# Test cases are counted from each program's top-level KTAP result lines; a
# program that crashes, times out or fails without saying which case failed
# counts as one more failure, and so does a failed rmmod or a leak. The last
# line is "N passed, N failed[, N skipped]".
set -u
# Braces: bash reads the whole script before running it, so an edit to this
# file while it runs (for up to an hour) cannot derail it.
{

here=$(cd "$(dirname "$0")" && pwd)
build='' srcdir=$(cd "$here/../../selftests" 2>/dev/null && pwd)
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--selftests) srcdir=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "usage: $0 --build BUILD/KVER [--selftests DIR] [NAME]..." >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -n "$build" ] || { echo "run-tests: --build is required" >&2; exit 2; }
ko=$build/kmod/encd.ko
kmemleak=/sys/kernel/debug/kmemleak
# For tests that reload the module with other parameters or read data files.
export ENCD_KO=$ko ENCD_BUILD=$build ENCD_SELFTESTS=$srcdir ENCD_LANE=${build##*/}

passed=0 failed=0 skipped=0
fail() {
	echo "# FAIL: $*"
	failed=$((failed + 1))
}

timeout=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$srcdir/settings" 2>/dev/null | tail -n 1)
timeout=${timeout:-300}

# name -> path; a binary built for this kernel wins over a shared one.
declare -A tests
for f in "$srcdir"/*_test.sh "$build/../selftests"/*_test "$build/selftests"/*_test; do
	[ -f "$f" ] || continue
	case $f in *.sh) ;; *) [ -x "$f" ] || continue ;; esac
	name=$(basename "$f" .sh)
	tests[$name]=$f
done
names=("$@")
if [ $# = 0 ] && [ ${#tests[@]} -gt 0 ]; then
	mapfile -t names < <(printf '%s\n' "${!tests[@]}" | LC_ALL=C sort)
fi
[ ${#names[@]} -gt 0 ] || echo "# no selftest programs in $build/selftests, $build/../selftests or $srcdir"

# Tests may load more kernel modules; encd's own dependencies come first.
deps=$(modinfo -F depends "$ko" 2>/dev/null | tr , ' ')

# kmemleak reports an object only when two scans in a row found no reference
# to it and it was more than 5 seconds old at the second.
leak_scan() {
	local start=$SECONDS wait
	echo scan >"$kmemleak"
	wait=$((start + 6 - SECONDS))
	[ $wait -le 0 ] || sleep $wait
	echo scan >"$kmemleak"
}

# Only leaks found after this point are ours: forget what the boot left.
if [ -w "$kmemleak" ]; then
	leak_scan
	echo clear >"$kmemleak"
fi

for name in "${names[@]}"; do
	name=${name%.sh}
	prog=${tests[$name]:-}
	if [ -z "$prog" ]; then
		fail "no selftest named $name"
		continue
	fi
	echo "# ---- $name"

	grep -q '^encd ' /proc/modules && rmmod encd
	for d in $deps; do
		modprobe "$d"
	done
	params=$(head -n 1 "$srcdir/$name.modparams" 2>/dev/null)
	# $params is split on purpose: "a=1 b=2" are two parameters.
	# shellcheck disable=SC2086
	if ! insmod "$ko" $params; then
		fail "insmod encd failed before $name"
		continue
	fi

	log=/tmp/$name.log
	run=("$prog")
	[ -x "$prog" ] || run=(bash "$prog")
	(cd "$srcdir" && exec timeout -k 10 "$timeout" "${run[@]}") 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}

	# Top-level KTAP lines only: subtests are indented or behind "# ".
	ok=$(grep -cE '^ok [0-9]+' "$log")
	skip=$(grep -ciE '^ok [0-9]+.*# *skip' "$log")
	notok=$(grep -cE '^not ok [0-9]+' "$log")
	plan=$(sed -n 's/^1\.\.\([0-9]\+\).*/\1/p' "$log" | head -n 1)
	if [ $((ok + notok)) = 0 ]; then
		# Not a KTAP program: the exit status is the one result
		# (4 is kselftest's "skip").
		case $rc in
		0) ok=1 ;;
		4) ok=1 skip=1 ;;
		esac
	fi
	passed=$((passed + ok - skip))
	skipped=$((skipped + skip))
	failed=$((failed + notok))

	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		fail "$name timed out after ${timeout}s"
	elif [ "$rc" -gt 128 ]; then
		fail "$name was killed by signal $((rc - 128))"
	elif [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$notok" = 0 ]; then
		fail "$name exited with status $rc"
	elif [ -n "$plan" ] && [ $((ok + notok)) -lt "$plan" ]; then
		fail "$name planned $plan tests but reported $((ok + notok))"
	fi

	rmmod encd || fail "rmmod encd failed after $name"

	if [ -w "$kmemleak" ]; then
		leak_scan
		# debugfs files have no size: read the report to see.
		leaks=$(cat "$kmemleak")
		if [ -n "$leaks" ]; then
			echo "$leaks"
			fail "kmemleak found leaks after $name"
			echo clear >"$kmemleak"
		fi
	fi
done

summary="$passed passed, $failed failed"
[ "$skipped" = 0 ] || summary+=", $skipped skipped"
echo "$summary"
[ "$failed" = 0 ]
exit
}
