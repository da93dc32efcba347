#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# encctl from the outside: exit codes (0 / 1 / 2), help, the errors an
# operator sees (a missing module, a missing capability, a value the kernel
# refuses, a comm that is not there), that words are never abbreviated, that
# -j, -p and -V work before or after the object, that errors are JSON with
# -j (world join's and launch's too, through the same printer), that asking
# for the family loads the module, that status warns when encd allows
# worlds without a secret and shows the networks worlds may use. KTAP output; run by tools/vm in
# the VM with encd loaded, from the selftests directory. It unloads and
# reloads encd, so it refuses to run anywhere but in the test VM (it
# skips); there, a missing encctl or module fails it.
set -u

encctl=${ENCCTL:-${ENCD_BUILD:+$ENCD_BUILD/../tools/encctl}}
encctl=${encctl:-../build/tools/encctl}
ko=${ENCD_KO:-}
echo "TAP version 13"
if ! grep -q 'encdvm\.' /proc/cmdline; then
	echo "1..0 # SKIP runs only in the encd test VM"
	exit 4
fi
# In the VM a missing tool fails the program: a lane cannot pass without it.
if [ ! -x "$encctl" ] || [ ! -f "$ko" ]; then
	echo "1..1"
	echo "not ok 1 encctl_test # no encctl at $encctl, or no module at \$ENCD_KO ('$ko')"
	exit 1
fi

modprobe_path=$(cat /proc/sys/kernel/modprobe)
cleanup() {
	echo "$modprobe_path" >/proc/sys/kernel/modprobe
	grep -q '^encd ' /proc/modules || insmod "$ko"
	rm -f /tmp/encd-nomod.$$ /tmp/encd-modprobe.$$ /tmp/requests /tmp/encctl-stderr.$$
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

# run_quiet CMD...: runs CMD; its stdout in $out, its stderr in $err, its
# status in $rc (the caller's locals).
run_quiet() {
	out=$("$@" 2>/tmp/encctl-stderr.$$)
	rc=$?
	err=$(cat /tmp/encctl-stderr.$$)
}

# judged NAME WANT PASSED CMD...: ok NAME when PASSED is 0, else says what
# CMD did (run_quiet's $out, $err and $rc) against the status WANT.
judged() {
	local name=$1 want=$2 passed=$3
	shift 3
	if [ "$passed" = 0 ]; then
		ok "$name"
	else
		echo "# $*: status $rc (want $want)"
		echo "#   stdout: $out"
		echo "#   stderr: $err"
		not_ok "$name"
	fi
}

# expect_json_error NAME STATUS PATTERN CMD...: CMD (with -j) exits with
# STATUS, says nothing on stderr, and prints on stdout one JSON document,
# {"error": SENTENCE}, whose sentence matches the regular expression PATTERN.
expect_json_error() {
	local name=$1 want=$2 pattern=$3 out err rc passed=1
	shift 3
	run_quiet "$@"
	[ "$rc" = "$want" ] && [ -z "$err" ] && python3 -c '
import json, re, sys
doc = json.loads(sys.argv[1])
sys.exit(not (list(doc) == ["error"] and re.search(sys.argv[2], doc["error"])))
' "$out" "$pattern" && passed=0
	judged "$name" "$want" "$passed" "$@"
}

# expect_json_failure NAME STATUS NRT KEYS PATTERN CMD...: CMD (with -j)
# exits with STATUS, says nothing on stderr, and prints JSON documents, one a
# line, each of them an error document ("error" its first key, no "ok"). The
# last one's keys begin with the words of KEYS, its "error" matches PATTERN
# and, unless NRT is -, its "status" is NRT.
expect_json_failure() {
	local name=$1 want=$2 nrt=$3 keys=$4 pattern=$5 out err rc passed=1
	shift 5
	run_quiet "$@"
	[ "$rc" = "$want" ] && [ -z "$err" ] && python3 -c '
import json, re, sys
out, nrt, keys, pattern = sys.argv[1:5]
docs = [json.loads(line) for line in out.splitlines()]
last, keys = (docs or [{}])[-1], keys.split()
sys.exit(not (docs and all(list(d)[:1] == ["error"] and "ok" not in d for d in docs) and
              list(last)[:len(keys)] == keys and re.search(pattern, last["error"]) and
              (nrt == "-" or last.get("status") == nrt)))
' "$out" "$nrt" "$keys" "$pattern" && passed=0
	judged "$name" "$want" "$passed" "$@"
}

# expect_same NAME CMD1 -- CMD2: both succeed with the same non-empty output.
expect_same() {
	local name=$1 a b rc1 rc2 i
	shift
	for ((i = 1; i <= $#; i++)); do
		[ "${!i}" = -- ] && break
	done
	a=$("${@:1:i-1}" 2>&1)
	rc1=$?
	b=$("${@:i+1}" 2>&1)
	rc2=$?
	if [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ -n "$a" ] && [ "$a" = "$b" ]; then
		ok "$name"
	else
		echo "# ${*:1:i-1}: status $rc1, output:"
		sed 's/^/#   /' <<<"$a"
		echo "# ${*:i+1}: status $rc2, output:"
		sed 's/^/#   /' <<<"$b"
		not_ok "$name"
	fi
}

# expect_insecure NAME ALLOWED: `encctl status` warns that worlds without a
# secret are allowed exactly when ALLOWED is true, and `encctl -j status`
# says "allow_insecure_worlds": ALLOWED.
expect_insecure() {
	local name=$1 allowed=$2 text json warned=false
	text=$("$encctl" status 2>&1) &&
		json=$("$encctl" -j status 2>&1) || {
		echo "# encctl status failed: $text $json"
		not_ok "$name"
		return
	}
	grep -qE '^encd: WARNING: allow_insecure_worlds=1: a world whose root is not on loopback' \
		<<<"$text" && warned=true
	if [ "$warned" = "$allowed" ] && python3 -c '
import json, sys
sys.exit(json.loads(sys.argv[1])["allow_insecure_worlds"] is not (sys.argv[2] == "true"))
' "$json" "$allowed"; then
		ok "$name"
	else
		echo "# allowed $allowed: warned $warned; text:"
		sed 's/^/#   /' <<<"$text"
		echo "# json: $json"
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

echo "1..64"

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
expect port_with_root_is_usage 2 'world join: --port is the port of a root the launcher names; --root HOST:PORT has its own' \
	"$encctl" world join --from-env --port 29500 --root 127.0.0.1:29400

expect status_of_an_empty_host 0 'no global comms' "$encctl" status

# Words are whole: an abbreviation is refused, naming what it could mean.
expect abbreviated_object_is_refused 2 \
	"^encctl: unknown object 'stat' \\(words are never abbreviated\\); did you mean status\\?$" \
	"$encctl" stat
expect abbreviated_command_is_refused 2 \
	"^encctl: comm: unknown command 'sh' \\(words are never abbreviated\\); did you mean show\\?$" \
	"$encctl" comm sh
expect ambiguous_abbreviation_names_every_match 2 \
	"unknown command 's' .*did you mean show, set or sync\\?" \
	"$encctl" topo s
expect abbreviated_keyword_is_refused 2 \
	"topo set: unknown argument 'pod-ty' .*did you mean pod-type\\?" \
	"$encctl" topo set pod-ty p2p
expect abbreviated_value_is_refused 2 "unknown pod-type 'sw' .*did you mean switch\\?" \
	"$encctl" topo set pod-type sw
expect abbreviated_option_is_refused 2 \
	"program sign: '--vn' is not an option \\(options are never abbreviated\\); did you mean --vnc\\?" \
	"$encctl" program sign x.json --vn 0
expect unknown_command_lists_the_commands 2 "world: unknown command 'go'; try join, launch, check or help" \
	"$encctl" world go
expect missing_command_lists_the_commands 2 'program needs a command; try sign or help' \
	"$encctl" program

# One number parser: decimal or hex, never negative, never above the field.
expect hex_number_is_read 1 'comm dev 5 ctx 1: No such file or directory' \
	"$encctl" comm show dev 0x5 ctx 0x1
expect negative_number_is_refused 2 "dev: '-1' is not a number from 0 to 255" \
	"$encctl" comm show dev -1
expect leading_zero_is_refused 2 "pod-sz: '010' is not a number" "$encctl" topo set pod-sz 010
expect overflow_is_refused 2 'reservation-id: 18446744073709551616 is above 18446744073709551615' \
	"$encctl" topo set reservation-id 18446744073709551616
expect missing_value_is_said 2 'comm show: ctx needs a value' "$encctl" comm show ctx

# -j, -p and -V before or after the object; -h after it is the object's help.
expect_same json_before_or_after_the_object "$encctl" -j status -- "$encctl" status -j
expect_same long_json_after_the_object "$encctl" -j status -- "$encctl" status --json
expect_same pretty_before_or_after "$encctl" -j -p topo -- "$encctl" topo show --pretty -j
expect_same clustered_options "$encctl" -jp comm -- "$encctl" comm show -p -j
expect version_after_the_object 0 '^encctl [0-9]' "$encctl" status -V
expect help_after_the_object 0 '^Usage: encctl .*comm' "$encctl" comm show dev 3 --help
expect help_is_a_command 0 '^Usage: encctl .*world' "$encctl" world help
expect help_for_program 0 '^Usage: encctl .*program sign' "$encctl" program -h

# Options out of place, or unknown: the sentence says what works.
expect command_option_before_the_object 2 \
	"^encctl: '--vnc' goes after 'world join', 'world launch' or 'program sign'; before the object only -j" \
	"$encctl" --vnc 0 program sign x.json
expect command_option_on_another_object 2 \
	"^encctl: status: '--vnc' is not an option of status; it goes after 'world join'" \
	"$encctl" status --vnc 0
expect option_of_the_other_command 2 \
	"world join: '--all-groups' is not an option of world join; it goes after 'program sign'" \
	"$encctl" world join --all-groups
expect keyword_with_dashes 2 "comm show: '--dev' is not an option; did you mean dev\\?" \
	"$encctl" comm show --dev 3
expect unknown_option_before_the_object 2 \
	"^encctl: unknown option '-x'; before the object only -j \\(--json\\), -p \\(--pretty\\), -V \\(--version\\) and -h \\(--help\\) work$" \
	"$encctl" -x status
expect unknown_option_lists_the_options 2 \
	"world launch: unknown option '--bogus'; world launch takes --vnc, .*--ranks, .*--secret-file, .* and -j" \
	"$encctl" world launch --bogus

# With -j, errors are the JSON output: {"error": ...}, and the exit status.
expect_json_error json_usage_error 2 "^comm show: dev: 'x' is not a number" \
	"$encctl" -j comm show dev x
expect_json_error json_usage_error_with_j_after 2 '^comm show: dev: 300 is above 255$' \
	"$encctl" comm show dev 300 -j
expect_json_error json_abbreviation 2 "unknown object 'stat' .*did you mean status" \
	"$encctl" stat --json
expect_json_error json_misplaced_option 2 "^'--vnc' goes after" \
	"$encctl" --vnc 0 program sign x.json -j
expect_json_error json_failure 1 '^comm dev 5 ctx 1: No such file or directory: no global comm' \
	"$encctl" -j comm show dev 5 ctx 1
expect_json_error json_kernel_refusal 1 'out of range.*pod-type' \
	"$encctl" topo set pod-type 9 -j
expect missing_comm_is_an_error 1 'comm dev 5 ctx 1: No such file or directory: no global comm' \
	"$encctl" comm show dev 5 ctx 1
expect refused_value_names_the_attribute 1 'out of range.*pod-type' \
	"$encctl" topo set pod-type 9
expect unprivileged_set_names_the_capability 1 'Operation not permitted.*CAP_NET_ADMIN' \
	as_nobody "$encctl" topo set pod-sz 2
expect unprivileged_status_works 0 'virtual NeuronCores' as_nobody "$encctl" status

# world join and launch fail through the same printer: the sentence, with
# libenc's NRT_STATUS beside it and, for join, the record of what it did.
nosecret=/tmp/encd-no-secret.$$
join_args=(--vnc 20 --g-device-id 0 --world-size 1 --root 127.0.0.1:29400
	   --secret-file "$nosecret")
launch_args=(-n 2 --vnc-base 20 --root 127.0.0.1:29400 --secret-file "$nosecret")
no_file="cannot read the secret file $nosecret: No such file or directory"
expect join_failure_is_one_sentence 1 \
	"^encctl: world join: rank 0: world join: $no_file \\(NRT_INVALID\\)$" \
	"$encctl" world join "${join_args[@]}"
expect_json_failure json_join_failure_keeps_its_record 1 NRT_INVALID \
	"error status reason g_device_id vnc rank rank_n phases" \
	"^world join: rank 0: world join: $no_file$" "$encctl" -j world join "${join_args[@]}"
expect launch_failure_is_one_sentence 1 '^encctl: world launch: 2 of 2 ranks failed$' \
	"$encctl" world launch "${launch_args[@]}"
expect_json_failure json_launch_failure_follows_its_ranks 1 - error \
	'^world launch: 2 of 2 ranks failed$' "$encctl" -j world launch "${launch_args[@]}"
# A join that forms keeps its own document: "ok", "error" (null), "status",
# "reason" (null), then its record.
out=$("$encctl" -j world join --vnc 20 --g-device-id 0 --world-size 1 --root 127.0.0.1:29401 \
	2>/tmp/encctl-stderr.$$)
rc=$?
if [ "$rc" = 0 ] && python3 -c '
import json, sys
doc = json.loads(sys.argv[1])
sys.exit(not (list(doc)[:6] == ["ok", "error", "status", "reason", "g_device_id", "vnc"] and
              doc["ok"] is True and doc["error"] is None and doc["status"] == "NRT_SUCCESS" and
              doc["reason"] is None and doc["rank_n"] == 1))
' "$out"; then
	ok json_join_success_keeps_its_document
else
	echo "# world join of a world of 1: status $rc, stdout: $out"
	echo "#   stderr: $(cat /tmp/encctl-stderr.$$)"
	not_ok json_join_success_keeps_its_document
fi
expect launch_success_counts_its_ranks 0 '^2 of 2 ranks succeeded$' \
	"$encctl" world launch -n 2 --vnc-base 20 --root 127.0.0.1:29402

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
expect_json_error missing_module_in_json 1 \
	'^encd generic netlink family not found: is the encd module loaded\?$' "$encctl" status -j

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

# Loaded without allow_insecure_worlds, then with it, then without again.
expect_insecure status_is_quiet_about_secrets_by_default false
rmmod encd && insmod "$ko" allow_insecure_worlds=1
expect_insecure status_warns_when_loaded_with_allow_insecure_worlds true
rmmod encd && insmod "$ko"
expect_insecure status_is_quiet_again_once_reloaded_without_it false

# networks at load: shown as encd reads it, in text and JSON; a bad value
# fails the load.
rmmod encd && insmod "$ko" networks=10.0.0.0/8,FD00::/8
expect status_shows_networks_given_at_load 0 \
	'^encd: networks=10\.0\.0\.0/8,fd00::/8: worlds use no other address' "$encctl" status
expect json_status_shows_networks 0 '"networks": *"10\.0\.0\.0/8,fd00::/8"' \
	"$encctl" -j status
rmmod encd
expect a_bad_networks_value_fails_the_load 1 'Invalid argument|Invalid parameters' \
	insmod "$ko" networks=10.0.0.0/40
insmod "$ko"
expect json_status_shows_no_networks_by_default 0 '"networks": *""' "$encctl" -j status

exit $((failed > 0))
