#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One test lane: boots KERNEL, runs the selftests in it (run-tests.sh) and
# adds what only the host can see, a VM that did not finish and the kernel
# problems on the console (a backstop: run-tests.sh blames each one it sees
# on the program that was running), to their count.
#
#   check.sh --kernel VMLINUZ --build BUILD/KVER [--modules-dir DIR]
#            [--selftests DIR] [--allow-skip NAME]... [--multihost VMS]...
#            [--slurm VMS]... [--install]
#            [run.sh options] -- [NAME]...
#
# --allow-skip names a program whose tests may skip in this lane (the lane's
# list; any other skip fails it). --multihost also forms one world across VMS
# VMs (multihost-bootstrap.sh), once per --multihost given; --slurm runs a
# Slurm cluster of VMS VMs whose srun starts the world (slurm-cluster.sh).
# --install also
# builds the Debian packages and installs them in a VM of their own, where
# DKMS builds the module (tools/pkg/install-test.sh).
#
# The last line printed is "N passed, N failed[, N skipped]"; the exit
# status is 0 only when nothing failed and something ran.
set -eu
# Braces: bash reads the whole script before running it, so an edit to this
# file while it runs (for up to an hour) cannot derail it.
{

here=$(cd "$(dirname "$0")" && pwd)

build='' multihost=() slurm=() install='' runner_args=() vm_args=() allowed=()
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--multihost) multihost+=("$2"); shift 2 ;;
	--slurm) slurm+=("$2"); shift 2 ;;
	--install) install=1; shift ;;
	--selftests) runner_args+=(--selftests "$2"); shift 2 ;;
	--allow-skip) runner_args+=(--allow-skip "$2"); allowed+=("$2"); shift 2 ;;
	--quiet) vm_args+=("$1"); shift ;;
	--) shift; break ;;
	*) vm_args+=("$1" "$2"); shift 2 ;;
	esac
done
[ -n "$build" ] || { echo "usage: $0 --kernel VMLINUZ --build BUILD/KVER [options] -- [NAME]..." >&2; exit 2; }
out=$build/vm

# Two lanes for the same kernel take turns (run.sh alone would let the
# second truncate the logs before this one has read them).
mkdir -p "$build"
exec 9>"$build/.check.lock"
if ! flock -n 9; then
	echo "check: another check of $build is running, waiting for it" >&2
	flock 9
fi

start=$(date +%s)
"$here/run.sh" "${vm_args[@]}" --out "$out" -- \
	"$here/run-tests.sh" --build "$build" "${runner_args[@]}" -- "$@" || true
# What run.sh found; no result file means it could not even boot the VM.
finished=0 status=1 kernel_problems=0
if [ -f "$out/result" ]; then
	# shellcheck source=/dev/null
	. "$out/result"
fi

passed=0 failed=0 skipped=0
summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$out/output.log" | tail -n 1 || true)
if [ -n "$summary" ]; then
	read -r passed _ failed _ skipped _ <<<"${summary//,/}"
	skipped=${skipped:-0}
fi
# The console's problems count unless the runner already blamed them on the
# programs that were running.
blamed=$(grep -acE '^# FAIL: kernel: ' "$out/output.log" || true)
[ "$blamed" != 0 ] || failed=$((failed + kernel_problems))
if [ "$finished" = 0 ]; then
	echo "FAIL: the VM did not finish the tests"
	failed=$((failed + 1))
elif [ -z "$summary" ] || { [ "$status" != 0 ] && [ "$failed" = 0 ]; }; then
	echo "FAIL: the test runner exited with status $status"
	failed=$((failed + 1))
fi
[ "$kernel_problems" = 0 ] || echo "FAIL: $kernel_problems kernel problem(s), see $out/kernel-problems.txt"
if [ -n "$summary" ] && [ $((passed + failed + skipped)) = 0 ]; then
	echo "FAIL: no test ran"
	failed=1
fi

# Runs one more test of the lane (a script that ends with its own
# "N passed, N failed" line), shows its output and adds its counts.
extra_test() {
	local what=$1 out line p f t0
	shift
	t0=$(date +%s)
	out=$("$@" 2>&1 || true)
	echo "$out"
	echo "$what: $(($(date +%s) - t0))s"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1 || true)
	if [ -n "$line" ]; then
		read -r p _ f _ <<<"${line//,/}"
		passed=$((passed + p))
		failed=$((failed + f))
	else
		echo "FAIL: the $what printed no result"
		failed=$((failed + 1))
	fi
}

# Hosts that share no kernel: one world across VMs on a virtual network.
for vms in "${multihost[@]}"; do
	extra_test "multi-host test ($vms VMs)" "$here/../multihost-bootstrap.sh" \
		--kver "$(basename "$build")" --vms "$vms"
done
# A Slurm cluster of VMs, where srun starts the world.
for vms in "${slurm[@]}"; do
	extra_test "Slurm cluster test ($vms VMs)" "$here/../slurm-cluster.sh" \
		--kver "$(basename "$build")" --vms "$vms"
done
# The packages, installed where DKMS builds the module for this kernel.
[ -z "$install" ] ||
	extra_test "install test" "$here/../pkg/install-test.sh" --kver "$(basename "$build")"

echo "lane $(basename "$build"): $(($(date +%s) - start))s; skips allowed in: ${allowed[*]:-no program}"
summary="$passed passed, $failed failed"
[ "$skipped" = 0 ] || summary+=", $skipped skipped"
echo "$summary"
[ "$failed" = 0 ]
exit
}
