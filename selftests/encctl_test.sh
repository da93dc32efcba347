#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# encctl from the outside: exit codes (0 / 1 / 2), help, the errors an
# operator sees (a missing module, a missing capability, a value the kernel
# refuses, a comm that is not there), and that asking for the family loads
# the module. KTAP output; run by tools/vm in the VM with encd loaded, from
# the selftests directory. It unloads and reloads encd, so it refuses to run
# anywhere but in the test VM.
set -u

encctl=${ENCCTL:-${ENCD_BUILD:+$ENCD_BUILD/../tools/encctl}}
encctl=${encctl:-../build/tools/encctl}
ko=${ENCD_KO:-}
echo "TAP version 13"
if ! grep -q 'encdvm\.' /proc/cmdline || [ ! -x "$encctl" ] || [ ! -f "$ko" ]; then
	echo "1..0 # SKIP runs only in the encd test VM, with encctl and \$ENCD_KO"
	exit 4
fi

modprobe_path=$(cat /proc/sys/kernel/modprobe)
cleanup() {
	echo "$modprobe_path" >/proc/sys/kernel/modprobe
	grep -q '^encd ' /proc/modules || insmod "$ko"
	rm -f /tmp/encd-nomod.$$ /tmp/encd-modprobe.$$ /tmp/requests
}
trap cleanup EXIT

n=0 failed=0
ok() {
	n=$((n + 1))
	echo "ok $n $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
}

# expect NAME STATUS PATTERN CMD...: CMD exits with STATUS and its output
# (stdout and stderr) matches the extended regular expression PATTERN.
expect() {
	local name=$1 want=$2 pattern=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pattern" <<<"$out"; then
		ok "$name"
	else
		echo "# $*: status $rc (want $want), output:"
		sed 's/^/#   /' <<<"$out"
		not_ok "$name"
	fi
}

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# The usermode helper runs in PID 1's root, which may not be ours (the VM
# runs tests in a chroot): find where our /tmp is from there.
helper_path() {
	local prefix
	for prefix in "" /host; do
		if [ /proc/1/root$prefix/tmp/"$1" -ef /tmp/"$1" ]; then
			echo "$prefix/tmp/$1"
			return
		fi
	done
}

echo "1..20"

expect version 0 '^encctl [0-9]' "$encctl" -V
expect help_lists_the_objects 0 'status.*' "$encctl" --help
for obj in status comm topo monitor; do
	expect "help_for_$obj" 0 "^Usage: encctl .*$obj" "$encctl" "$obj" --help
done
expect unknown_object_is_usage 2 "unknown object 'bogus'" "$encctl" bogus
expect no_object_is_usage 2 'Usage:' "$encctl"
expect bad_number_is_usage 2 "dev: 'x' is not a number" "$encctl" comm show dev x
expect core_out_of_range_is_usage 2 'dev: 300 is above 255' "$encctl" comm show dev 300
expect unknown_argument_is_usage 2 "unknown argument 'bogus'" "$encctl" topo set bogus 1
expect empty_set_is_usage 2 'say what to set' "$encctl" topo set

expect status_of_an_empty_host 0 'no global comms' "$encctl" status
expect missing_comm_is_an_error 1 'comm dev 5 ctx 1: No such file or directory: no global comm' \
	"$encctl" comm show dev 5 ctx 1
expect refused_value_names_the_attribute 1 'out of range.*pod-type' \
	"$encctl" topo set pod-type 9
expect unprivileged_set_names_the_capability 1 'Operation not permitted.*CAP_NET_ADMIN' \
	as_nobody "$encctl" topo set pod-sz 2
expect unprivileged_status_works 0 'virtual NeuronCores' as_nobody "$encctl" status

# Without the module, and without a way to load it.
cat >/tmp/encd-nomod.$$ <<'EOS'
#!/bin/sh
echo "$@" >>"${0%/*}/requests"
exit 1
EOS
chmod +x /tmp/encd-nomod.$$
rmmod encd
helper_path encd-nomod.$$ >/proc/sys/kernel/modprobe
expect missing_module_is_said_in_words 1 \
	'^encctl: encd generic netlink family not found: is the encd module loaded\?$' \
	"$encctl" status

# With a modprobe that can: resolving the family loads encd.
if grep -q 'net-pf-16-proto-16-family-encd' /tmp/requests 2>/dev/null; then
	ok family_lookup_asks_for_the_module
else
	echo "# the kernel asked for: $(cat /tmp/requests 2>/dev/null)"
	not_ok family_lookup_asks_for_the_module
fi
cat >/tmp/encd-modprobe.$$ <<EOS
#!/bin/sh
root=\${0%/tmp/*}
exec \${root:+chroot \$root} /sbin/insmod "$ko"
EOS
chmod +x /tmp/encd-modprobe.$$
helper_path encd-modprobe.$$ >/proc/sys/kernel/modprobe
expect family_lookup_loads_the_module 0 'virtual NeuronCores' "$encctl" status

exit $((failed > 0))
