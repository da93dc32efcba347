#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One world across several QEMU VMs: each VM loads encd, joins a QEMU virtual
# network (10.77.0.0/24, the VM's own address 10.77.0.<i+1>) and starts its
# share of the ranks with `encctl world launch --ranks`; the root is rank 0 on
# the first VM. Every rank forms the world, runs a group and a local barrier
# and tears down; the script prints one KTAP result and exits 0 when every
# rank on every VM succeeded and each VM unloaded encd cleanly.
#
#   multihost-bootstrap.sh [--kver KVER] [--vms N] [--ranks-per-vm R]
#
# Two VMs are joined point to point (QEMU socket listen/connect over the
# host's loopback); more share a multicast group whose socket QEMU binds to
# the host's loopback (localaddr=127.0.0.1), so that the guests' frames
# never leave the host. The VMs run side by side, holding the machine's VM
# lock together (tools/vm/run.sh).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kver='' vms=2 per=4
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--vms) vms=$2; shift 2 ;;
	--ranks-per-vm) per=$2; shift 2 ;;
	*) sed -n '/^#   multihost/p' "$0" >&2; exit 2 ;;
	esac
done
if [ -z "$kver" ]; then
	kver=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' |
		grep -v -e cloud -e rt | sort -V | tail -n 1)
fi
ko=$top/build/$kver/kmod/encd.ko
encctl=$top/build/tools/encctl
[ -r "$ko" ] && [ -x "$encctl" ] || { echo "build first: make KVER=$kver" >&2; exit 1; }

out=$top/build/$kver/multihost
rm -rf "$out"
mkdir -p "$out"
n=$((vms * per))
port=$((20000 + $$ % 20000))
pids=()
# A root off loopback needs a world secret, the same on every VM.
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$out/secret"

exec 7>"${ENCD_VM_LOCK:-/var/lock/encd-vm.lock}"
flock 7
export ENCD_VM_LOCK_HELD=1

echo "TAP version 13"
echo "1..1"
for i in $(seq 0 $((vms - 1))); do
	cat > "$out/vm$i.sh" <<EOS
#!/bin/sh
ip link set eth0 up && ip addr add 10.77.0.$((i + 1))/24 dev eth0 || exit 1
insmod $ko num_vcores=$per || exit 1
$encctl -j world launch -n $n --ranks $((i * per)):$per --root 10.77.0.1:29600 \\
	--secret-file $out/secret \\
	--barrier --timeout-ms 120000
rc=\$?
rmmod encd || rc=1
exit \$rc
EOS
	chmod +x "$out/vm$i.sh"
	mac=52:54:00:77:00:$(printf %02x $((i + 1)))
	if [ "$vms" -eq 2 ]; then
		[ "$i" -eq 0 ] && sock="listen=127.0.0.1:$port" || sock="connect=127.0.0.1:$port"
	else
		sock="mcast=230.0.0.1:$port,localaddr=127.0.0.1"
	fi
	"$top/tools/vm/run.sh" --kernel "/boot/vmlinuz-$kver" --modules-dir "/lib/modules/$kver" \
		--out "$out/vm$i" --timeout 600 --mem 1024 --quiet \
		--qemu -nic --qemu "socket,$sock,model=virtio-net-pci,mac=$mac" \
		-- "$out/vm$i.sh" > "$out/vm$i.log" 2>&1 &
	pids+=($!)
	# Each run writes the shared initramfs first; let one finish it.
	sleep 3
done

failed=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || failed=$((failed + 1))
done
ok=$(cat "$out"/vm*/output.log 2>/dev/null | grep -c '"ok":true' || true)
for i in $(seq 0 $((vms - 1))); do
	grep -h '"ok":false' "$out/vm$i/output.log" 2>/dev/null | head -n 3 | sed "s/^/# vm$i: /"
	tail -n 1 "$out/vm$i.log" | sed "s/^/# vm$i: /"
done
if [ "$ok" -eq "$n" ] && [ "$failed" -eq 0 ]; then
	echo "ok 1 world_of_${n}_ranks_across_${vms}_vms_forms_and_tears_down # $ok ranks ok"
	echo "1 passed, 0 failed"
	exit 0
fi
echo "not ok 1 world_of_${n}_ranks_across_${vms}_vms_forms_and_tears_down # $ok of $n ranks ok, $failed VMs failed"
echo "0 passed, 1 failed"
exit 1
