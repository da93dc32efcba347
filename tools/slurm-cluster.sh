#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Slurm cluster of QEMU VMs, one node each (Debian's slurm-wlm and munge),
# on the VMs' virtual network (tools/vm/vmnet.sh): slurmctld on the first
# VM, slurmd and munged on every one, each VM a node nodeI at 10.77.0.I with
# encd loaded. From the first VM, two job steps, each task an encctl that
# takes its place from Slurm's environment alone (--from-env; the secret is
# the batch's ENC_WORLD_SECRET, which srun passes on):
#
#   1. srun -N VMS --ntasks-per-node R encctl -j world check --from-env:
#      every task passes, and rank 0's report names VMS hosts of R ranks
#      (then the same without -j: the report as an operator reads it);
#   2. the same world with one task (rank R + 1, on the second node) killed
#      by SIGKILL once the world formed, while the others run barriers:
#      every other task fails within seconds, naming that rank.
#
# Prints KTAP (one line per step, rank 0's report as comments, and one for
# the VMs: each unloaded encd, and no frame of their network left the
# loopback) and exits 0 when all three pass.
#
#   slurm-cluster.sh [--kver KVER] [--vms N] [--ranks-per-vm R] [--mem MB]
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/vm/vmnet.sh
. "$top/tools/vm/vmnet.sh"
kver='' vms=4 per=4 mem=768
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--vms) vms=$2; shift 2 ;;
	--ranks-per-vm) per=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	*) sed -n '/^#   slurm-cluster/,/^#   slurm-cluster/p' "$0" >&2; exit 2 ;;
	esac
done
[ -n "$kver" ] || kver=$(vmnet_kver)
ko=$top/build/$kver/kmod/encd.ko
encctl=$top/build/tools/encctl
[ -r "$ko" ] && [ -x "$encctl" ] || { echo "build first: make KVER=$kver" >&2; exit 1; }
for tool in slurmctld slurmd srun munged; do
	command -v "$tool" >/dev/null || { echo "no $tool: run 'make deps'" >&2; exit 1; }
done
[ "$vms" -ge 2 ] || { echo "--vms: at least 2" >&2; exit 2; }

out=$top/build/$kver/slurm-$vms
rm -rf "$out"
mkdir -p "$out"
n=$((vms * per))
port=$((20000 + $$ % 20000))
done_port=6899
# The killed task: the second of the second node's ranks.
victim=$((per + 1))

# What every node shares: the munge key, the cluster's configuration (its
# state and logs in each VM's own /tmp), the names of the nodes.
head -c 1024 /dev/urandom > "$out/munge.key"
chmod 0400 "$out/munge.key"
{
	echo "127.0.0.1 localhost"
	for i in $(seq 1 "$vms"); do
		echo "10.77.0.$i node$i"
	done
} > "$out/hosts"
cat > "$out/slurm.conf" <<EOF
ClusterName=encd
SlurmctldHost=node1(10.77.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
SlurmdParameters=config_overrides
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=/tmp/slurm/ctld
SlurmdSpoolDir=/tmp/slurm/d
SlurmctldPidFile=/tmp/slurm/slurmctld.pid
SlurmdPidFile=/tmp/slurm/slurmd.pid
SlurmctldLogFile=/tmp/slurm/slurmctld.log
SlurmdLogFile=/tmp/slurm/slurmd.log
SlurmctldTimeout=120
SlurmdTimeout=120
MessageTimeout=30
KillWait=5
NodeName=node[1-$vms] CPUs=$per State=UNKNOWN
PartitionName=encd Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# slurmd wants a cgroup hierarchy even where nothing it runs uses one (no
# cgroup plugin is configured above): v2, with no systemd to ask for its
# scope.
printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' > "$out/cgroup.conf"
# NodeAddr: Slurm reads node[1-N]'s addresses from /etc/hosts, which each
# VM gets (bind-mounted over the host's, read-only here).

# The steps, run on the first node once every node is idle. The guest's
# root is the host's, read-only: what they write goes in /tmp/res, and the
# VM prints it when they are done, one "=== NAME" section a file, where its
# output.log keeps it. What the tasks print is timed as srun hands it over,
# on node1's clock.
res=/tmp/res
cat > "$out/steps.sh" <<EOF
#!/bin/bash
export SLURM_CONF=$out/slurm.conf
mkdir -p $res
ENC_WORLD_SECRET=\$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n')
export ENC_WORLD_SECRET
stamp() { python3 -u -c 'import sys, time
for line in sys.stdin:
    print("%.3f %s" % (time.time(), line), end="", flush=True)'; }
for t in \$(seq 1 300); do
	[ "\$(sinfo -h -t idle -o %D 2>/dev/null)" = "$vms" ] && break
	sleep 1
done
sinfo > $res/sinfo.txt 2>&1
t0=\$(date +%s)
srun -N $vms --ntasks-per-node $per $encctl -j world check --from-env --barriers 5 \\
	--timeout-ms 120000 > $res/check.json 2> $res/check.err
echo \$? > $res/check.rc
echo \$((\$(date +%s) - t0)) > $res/check.s
# The same as an operator reads it: rank 0's report in text, the others quiet.
srun -N $vms --ntasks-per-node $per $encctl world check --from-env --barriers 5 \\
	--timeout-ms 120000 > $res/check.txt 2>&1
# Rank $victim joins and is killed 5 s after the world formed; the others
# run barriers until it fails them.
srun -u -N $vms --ntasks-per-node $per --kill-on-bad-exit=0 bash -c '
	if [ "\$SLURM_PROCID" = $victim ]; then
		$encctl -j world join --from-env --hold 600 --timeout-ms 120000 > /tmp/victim &
		until grep -q "^{" /tmp/victim 2>/dev/null; do sleep 0.2; done
		sleep 5
		kill -9 \$!
		echo "{\\"killed\\": \$SLURM_PROCID}"
		exit 0
	fi
	$encctl -j world join --from-env --barriers 100000 --timeout-ms 120000
	echo "{\\"ended\\": \$SLURM_PROCID}"
' 2> $res/kill.err | stamp > $res/kill.json
echo \${PIPESTATUS[0]} > $res/kill.rc
EOF
chmod +x "$out/steps.sh"

vmnet_lock
vmnet_capture_start "$out" "$port"

echo "TAP version 13"
echo "1..3"
for i in $(seq 0 $((vms - 1))); do
	node=node$((i + 1))
	{
		echo '#!/bin/bash'
		echo 'exec 2>&1; set -x'
		echo "ip link set eth0 up && ip addr add 10.77.0.$((i + 1))/24 dev eth0 || exit 1"
		echo "hostname $node && mount --bind $out/hosts /etc/hosts || exit 1"
		echo "insmod $ko num_vcores=$per || exit 1"
		echo "mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup || exit 1"
		echo "mkdir -p /sys/fs/cgroup/system.slice"
		echo "mkdir -p /tmp/slurm/ctld /tmp/slurm/d /tmp/munge /run/munge && chmod 700 /tmp/munge"
		echo "cp $out/munge.key /tmp/munge/key && chmod 600 /tmp/munge/key"
		echo "munged --force --key-file=/tmp/munge/key --log-file=/tmp/munge/log \\"
		echo "	--pid-file=/run/munge/munged.pid --seed-file=/tmp/munge/seed || exit 1"
		echo "export SLURM_CONF=$out/slurm.conf"
		echo 'logs() { set +x; mkdir -p /tmp/res; cp /tmp/munge/log /tmp/res/munged.log'
		echo '	cp /tmp/slurm/*.log /tmp/res/ 2>/dev/null'
		echo '	for f in /tmp/res/*; do echo "=== ${f##*/}"; cat "$f"; done; }'
		[ "$i" -eq 0 ] && echo "slurmctld -i || { logs; exit 1; }"
		echo "slurmd || { logs; exit 1; }"
		# The other nodes stay up until the first says the steps are done:
		# it accepts one connection from each on a port of its own.
		if [ "$i" -eq 0 ]; then
			echo "$out/steps.sh"
			echo "python3 -c 'import socket; s = socket.create_server((\"10.77.0.1\", $done_port)); s.settimeout(120); [s.accept() for _ in range($((vms - 1)))]'"
		else
			echo "for t in \$(seq 1 600); do timeout 5 bash -c '</dev/tcp/10.77.0.1/$done_port' 2>/dev/null && break; sleep 2; done"
		fi
		echo 'logs; pkill slurmctld; pkill slurmd; pkill munged; sleep 1'
		echo 'rc=0; rmmod encd || rc=1'
		echo 'exit $rc'
	} > "$out/vm$i.sh"
	vmnet_start "$i" "$vms" "$port" "$kver" "$out/vm$i.sh" "$out/vm$i" "$mem"
done

vmnet_wait "$out"

python3 - "$out" "$vms" "$per" "$victim" "$vmnet_failed" "${vmnet_leaked:-0}" <<'EOF'
import json
import os
import sys

out, vms, per, victim, failed, leaked = sys.argv[1], *map(int, sys.argv[2:])
n = vms * per
passed = 0


# What VM 0 printed: its sections, "=== NAME" then the file's lines.
sections = {}
try:
    with open("%s/vm0/output.log" % out, errors="replace") as f:
        name = None
        for line in f:
            if line.startswith("=== "):
                name = line[4:].strip()
                sections[name] = []
            elif name:
                sections[name].append(line)
except OSError:
    pass


def read(name):
    return "".join(sections.get(name, ["?"])).strip()


def docs(name):
    try:
        return [json.loads(line) for line in sections.get(name, []) if line.startswith("{")]
    except ValueError as e:
        return [{"error": "%s: %s" % (name, e)}]


def result(i, ok, name, why):
    global passed
    passed += ok
    print("%s %d %s # %s" % ("ok" if ok else "not ok", i, name, why))


# 1. srun -N vms --ntasks-per-node per encctl world check --from-env
d = docs("check.json")
rep = [x for x in d if "hosts" in x]
bad = [x for x in d if not x.get("ok")]
why = ""
if read("check.rc") != "0" or len(d) != n or bad or len(rep) != 1:
    why = "srun exit %s, %d documents, %s; %s" % (read("check.rc"), len(d), bad[:1],
                                                  read("check.err")[-400:])
    for log in ("slurmctld.log", "slurmd.log", "munged.log"):
        for line in sections.get(log, [])[-5:]:
            print("# %s: %s" % (log, line.rstrip()))
else:
    rep = rep[0]
    hosts = sorted((h["first_rank"], h["ranks"]) for h in rep["hosts"])
    text = read("check.txt")
    if hosts != [(i * per, per) for i in range(vms)] or rep["missing_n"]:
        why = "hosts (first rank, ranks) %s, %d missing" % (hosts, rep["missing_n"])
    elif not text.startswith("world check: %d ranks formed in " % n) or \
            "hosts slowest to register (of %d that came):" % vms not in text:
        why = "the report in text: %r" % text[:400]
    else:
        print("# srun -N %d --ntasks-per-node %d encctl world check --from-env:" % (vms, per))
        for line in sections.get("check.txt", []):
            print("#   " + line.rstrip())
        print("# the same with -j (%s s in all, srun included):" % read("check.s"))
        print("#   %d ranks formed in %.1f ms (%s), %d barriers, median %.2f ms" % (
            n, rep["setup_us"] / 1000,
            ", ".join("%s %.1f ms" % (k, v / 1000) for k, v in rep["phases"].items()),
            rep["barriers_passed"], rep["barrier_median_us"] / 1000))
        for h in sorted(rep["hosts"], key=lambda h: -h["registered_us"]):
            print("#   host %d %s: ranks %d-%d registered at +%.1f ms%s" % (
                h["index"], h["addr"], h["first_rank"], h["first_rank"] + h["ranks"] - 1,
                h["registered_us"] / 1000,
                ", handshake %.2f ms, rtt %s" % (
                    h["handshake_us"] / 1000, "none (its link is gone)" if h["rtt_us"] is None
                    else "%d us" % h["rtt_us"]) if h["index"] else ""))
result(1, not why, "srun_forms_a_world_of_%d_ranks_on_%d_nodes_from_slurm_s_environment" %
       (n, vms), why or "%d hosts of %d ranks, every rank passed" % (vms, per))

# 2. one task killed: the others fail, naming it, within seconds, by the
# times node1 got their lines from srun.
stamped = []
try:
    for line in sections.get("kill.json", []):
        t, _, doc = line.partition(" ")
        if doc.startswith("{"):
            stamped.append((float(t), json.loads(doc)))
except ValueError as e:
    stamped.append((0.0, {"error": "kill.json: %s" % e}))
killed = [t for t, x in stamped if "killed" in x]
ended = [t for t, x in stamped if "ended" in x]
failures = [x for t, x in stamped if x.get("error")]
why = ""
if len(killed) != 1 or len(failures) != n - 1 or len(ended) != n - 1:
    why = "%d killed, %d of %d others failed, %d ended: %s; %s" % (
        len(killed), len(failures), n - 1, len(ended),
        [x for t, x in stamped if x.get("ok")][:1], read("kill.err")[-400:])
else:
    late = max(ended) - killed[0]
    named = [x for x in failures if "rank %d " % victim in x["error"]]
    if len(named) != n - 1 or late > 10:
        why = "%d of %d name rank %d; the last ended %.1f s after the kill: %s" % (
            len(named), n - 1, victim, late, failures[0]["error"])
result(2, not why, "a_task_killed_fails_the_others_within_seconds_naming_it",
       why or "rank %d killed; the %d others failed within %.1f s: %s" % (
           victim, n - 1, late, failures[0]["error"]))

# 3. the cluster itself
result(3, not failed and not leaked, "every_vm_unloaded_encd_and_the_network_stayed_here",
       "%d of %d VMs failed, %d frames left the loopback" % (failed, vms, leaked))
print("%d passed, %d failed" % (passed, 3 - passed))
sys.exit(0 if passed == 3 else 1)
EOF
