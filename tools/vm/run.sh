#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boots a kernel in QEMU and runs one command in it, as root, in a chroot of
# the host's root file system (shared read-only over virtio-9p; /tmp, /run,
# /var/tmp and /dev/shm are fresh tmpfs). The command runs in the current
# directory. The guest sees the host's files at the same paths, except under
# /tmp, /run, /var/tmp and /dev, which are its own.
#
#   run.sh --kernel VMLINUZ [--modules-dir /lib/modules/KVER] --out DIR
#          [--mem MB] [--timeout SECONDS] [--append KERNEL_ARGS]
#          [--qemu QEMU_ARG]... [--quiet] -- COMMAND [ARG]...
#
# --modules-dir names where the kernel's virtio/9p modules are (not needed
# when they are built in). --qemu passes one more argument to QEMU, e.g.
# "--qemu -nic --qemu socket,mcast=230.0.0.1:1234,model=virtio-net-pci" to
# join a virtual network. The command's output is printed as it comes
# (unless --quiet) and kept in DIR/output.log; the kernel's console is in
# DIR/console.log and is scanned for kernel problems afterwards. DIR/result
# says how it went (finished, status, kernel_problems).
#
# Exits with the command's status, or 1 if the VM did not finish (crash,
# panic, timeout) or the kernel reported a problem.
set -eu
# Braces: bash reads the whole script before running it, so an edit to this
# file while it runs (for up to an hour) cannot derail it.
{

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

kernel='' moddir='' out='' mem=2048 timeout=1800 append='' quiet=''
qemu_extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--modules-dir) moddir=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--append) append="$append $2"; shift 2 ;;
	--qemu) qemu_extra+=("$2"); shift 2 ;;
	--quiet) quiet=1; shift ;;
	--) shift; break ;;
	*) sed -n '/^#   run.sh/,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
if [ -z "$kernel" ] || [ -z "$out" ] || [ $# -eq 0 ]; then
	echo "usage: $0 --kernel VMLINUZ --out DIR [options] -- COMMAND..." >&2
	exit 2
fi
[ -r "$kernel" ] || { echo "vm: cannot read kernel $kernel" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd -P)
case $out/ in
/dev/*)
	echo "vm: --out $out would be hidden by the guest's /dev: use a directory elsewhere" >&2
	exit 2 ;;
esac
# The guest mounts fresh tmpfs on /tmp, /run and /var/tmp; a checkout or an
# output directory under one of them (CI may clone into /tmp) is bound back
# from the host's root.
keep=
for d in "$top" "$out" "$(pwd -P)"; do
	case $d/ in
	/tmp/* | /run/* | /var/tmp/*)
		case $d in
		*[[:space:],]*)
			echo "vm: $d: a path with spaces or commas cannot be kept visible in the guest" >&2
			exit 2 ;;
		esac
		keep=${keep:+$keep,}$d ;;
	esac
done
# One VM per output directory: another would write into the same logs.
exec 8>"$out/.lock"
if ! flock -n 8; then
	echo "vm: another VM is using $out, waiting for it" >&2
	flock 8
fi
# One VM (or one group of VMs) on the machine at a time: TCG VMs side by
# side slow each other down by integer factors, which no test's deadline
# should have to absorb. A script that starts several VMs for one test
# takes the lock itself and sets ENCD_VM_LOCK_HELD for them.
if [ -z "${ENCD_VM_LOCK_HELD:-}" ]; then
	exec 7>"${ENCD_VM_LOCK:-/var/lock/encd-vm.lock}"
	if ! flock -n 7; then
		echo "vm: another VM is running on this machine, waiting for it" >&2
		flock 7
	fi
fi

label=$(basename "${moddir:-builtin}")
initrd=$top/build/vm/initramfs-$label.cpio
"$here/initramfs.sh" ${moddir:+--modules-dir "$moddir"} --out "$initrd"

# The guest finds the command in this file: paths are the same in there.
{
	echo '#!/bin/bash'
	echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
	echo 'export HOME=/tmp LC_ALL=C.UTF-8 TERM=dumb'
	# The tests' knobs cross into the guest: $ENCD_FUZZ_CALLS and the like.
	for v in "${!ENCD_FUZZ_@}" ENCD_SOAK_S ENCD_TEST_TIMEOUT; do
		[ -z "${!v:-}" ] || printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf 'cd %q || exit 1\n' "$(pwd -P)"
	printf 'exec'
	printf ' %q' "$@"
	printf '\n'
} >"$out/cmd.sh"
: >"$out/console.log"
: >"$out/output.log"
rm -f "$out/result" "$out/kernel-problems.txt"

# TCG: KVM fails to start on these machines. -nodefaults: no VGA, no NIC.
# An emulated CPU on a busy host can go tens of seconds without a tick: the
# RCU stall and soft-lockup detectors get their longest limits, so that they
# report kernel code that spins, not a slow emulator. Nor does the
# clocksource watchdog judge the emulated TSC: on a loaded host it finds it
# skewed against the HPET, marks it unstable mid-run, and the sched_clock
# switch that follows live-patches kernel text, which TCG can race: the 6.12
# lane's VM died of an int3 Oops in sched_clock_cpu() that way.
cmdline="console=ttyS0 panic=-1 rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60"
cmdline+=" tsc=nowatchdog"
# shellcheck disable=SC2054 # commas separate QEMU's sub-options
qemu=(qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot
	-accel tcg -cpu max -smp 2 -m "$mem"
	-kernel "$kernel" -initrd "$initrd"
	-append "$cmdline encdvm.cmd=$out/cmd.sh${keep:+ encdvm.keep=$keep}$append"
	-chardev "file,id=con,path=$out/console.log,append=on" -serial chardev:con
	-chardev "file,id=out,path=$out/output.log,append=on" -serial chardev:out
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
	"${qemu_extra[@]}")

# Whether the last boot died before anything of ours ran: no output from
# the guest's command, and a kernel problem on the console that names no
# encd module. The 6.12 kernel live-patches its text at boot (static keys,
# late_initcall), and QEMU's multi-threaded TCG can let the other vCPU run
# the old bytes: an int3 Oops in sched_clock_cpu(), before /init.
died_booting() {
	[ ! -s "$out/output.log" ] &&
		! "$here/scan-console.sh" "$out/console.log" >"$out/boot-problems.txt" &&
		! grep -q encd "$out/boot-problems.txt"
}

start=$(date +%s)
for boot in 1 2; do
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null >"$out/qemu.log" 2>&1 &
	qpid=$!
	trap 'kill $qpid 2>/dev/null' INT TERM
	if [ -z "$quiet" ]; then
		tail -n +1 -s 0.2 -f --pid=$qpid "$out/output.log"
	fi
	qrc=0
	wait $qpid || qrc=$?
	trap - INT TERM
	if [ $boot = 1 ] && died_booting; then
		echo "vm: the kernel died while booting, before the command ran (see" \
			"$out/console.boot1.log); booting it again" >&2
		mv "$out/console.log" "$out/console.boot1.log"
		: >"$out/console.log"
		continue
	fi
	break
done
rm -f "$out/boot-problems.txt"
elapsed=$(($(date +%s) - start))

finished=0 status=1
last=$(grep -a -E '^encd-vm: exit [0-9]+$' "$out/output.log" | tail -n 1 || true)
if [ -n "$last" ]; then
	finished=1
	status=${last#encd-vm: exit }
fi

problems=0
if ! "$here/scan-console.sh" "$out/console.log" >"$out/kernel-problems.txt"; then
	problems=$(grep -c '^--- kernel problem' "$out/kernel-problems.txt")
	echo "vm: the kernel reported $problems problem(s):"
	cat "$out/kernel-problems.txt"
fi

if [ $finished = 0 ]; then
	if [ $qrc = 124 ] || [ $qrc = 137 ]; then
		echo "vm: timed out after ${timeout}s"
	else
		echo "vm: the VM stopped before the command finished (qemu status $qrc)"
	fi
	cat "$out/qemu.log"
	echo "vm: the console's last lines ($out/console.log):"
	tr -d '\r' <"$out/console.log" | tail -n 30
fi
echo "vm: $(basename "$kernel"): ${elapsed}s, finished=$finished status=$status kernel_problems=$problems" >&2
printf 'finished=%s\nstatus=%s\nkernel_problems=%s\nelapsed=%s\n' \
	"$finished" "$status" "$problems" "$elapsed" >"$out/result"

[ $finished = 1 ] && [ "$problems" = 0 ] || exit 1
exit "$status"
}
