#!/usr/bin/env bash
# install-slurm.sh — a one-machine Slurm from Debian's packages (slurmctld,
# slurmd, munge), for scripts/slurm-check.sh and for trying
# scripts/slurm.sbatch on a laptop:
#   scripts/install-slurm.sh          # install, configure, start; idempotent
#   scripts/install-slurm.sh --stop [DAEMON…]  # stop slurmd, slurmctld, munged
#   scripts/install-slurm.sh --running         # name the daemons that run
#
# - installs slurmctld, slurmd, slurm-client and munge through apt-get
#   (scripts/apt-install.sh) when sbatch, slurmctld, slurmd or munged is
#   missing;
# - writes /etc/slurm/slurm.conf for this host: one node, named after
#   `hostname -s`, with the cores and memory `slurmd -C` reads off the
#   machine, one partition "ocbench" (the default); settings for a
#   container: no cgroups (ProctrackType=proctrack/linuxproc,
#   TaskPlugin=task/none), no accounting, every daemon as root. A
#   slurm.conf this script did not write (no "written by ocbench" line) is
#   left alone and the script stops: it configures no real cluster;
# - makes a munge key when there is none, and starts munged, slurmctld and
#   slurmd unless they run (by their pid files), restarting slurmctld and
#   slurmd when the file changed; then waits until the node is idle.
# The daemons keep running afterwards (reusable: the next call finds them);
# --stop ends them. Needs root (the daemons' files live under /etc, /run
# and /var); Debian/Ubuntu only.
set -euo pipefail
name=install-slurm
conf=/etc/slurm/slurm.conf
marker="# written by ocbench scripts/install-slurm.sh"
munge_pid=/run/munge/munged.pid
ctld_pid=/run/slurmctld.pid
slurmd_pid=/run/slurmd.pid

running() { # running PIDFILE: the process the pid file names is alive
	[ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

stop() { # stop PIDFILE NAME: TERM, then wait up to 10 s
	local pid
	running "$1" || return 0
	pid=$(cat "$1")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "$name: $2 (pid $pid) still runs 10 s after SIGTERM; killing it" >&2
		kill -KILL "$pid" 2>/dev/null || true
	fi
	echo "$name: stopped $2 (pid $pid)"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "$name: needs root (the daemons' files are under /etc, /run and /var)" >&2
	exit 1
fi

if [ "${1:-}" = --stop ]; then
	shift
	[ $# -gt 0 ] || set -- slurmd slurmctld munged
	for d in "$@"; do
		case $d in
		slurmd) stop "$slurmd_pid" slurmd ;;
		slurmctld) stop "$ctld_pid" slurmctld ;;
		munged) stop "$munge_pid" munged ;;
		*)
			echo "$name: --stop $d: want slurmd, slurmctld or munged" >&2
			exit 2
			;;
		esac
	done
	exit 0
fi
if [ "${1:-}" = --running ]; then
	# The daemons that run now, one name a line (scripts/slurm-check.sh
	# stops at its end those it started).
	running "$munge_pid" && echo munged
	running "$ctld_pid" && echo slurmctld
	running "$slurmd_pid" && echo slurmd
	exit 0
fi

if ! command -v sbatch >/dev/null 2>&1 || ! command -v slurmctld >/dev/null 2>&1 ||
	! command -v slurmd >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
	. "$(dirname "$0")/apt-install.sh"
	apt_install "$name" "install Slurm (slurmctld, slurmd, slurm-client) and munge by hand" \
		slurmctld slurmd slurm-client munge
fi

# The node as slurmd sees it: "NodeName=host CPUs=2 Boards=1 ... RealMemory=24105".
host=$(hostname -s)
node=$(slurmd -C | head -1)
case $node in
NodeName=*) ;;
*)
	echo "$name: slurmd -C printed no node line: $node" >&2
	exit 1
	;;
esac
node="NodeName=$host ${node#NodeName=* }"

if [ -e "$conf" ] && ! grep -qxF "$marker" "$conf"; then
	echo "$name: $conf exists and was not written by this script; leaving it (and this machine's Slurm) alone" >&2
	exit 1
fi
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
new=$(
	cat <<EOF
$marker
# A one-machine Slurm for ocbench's tests: no cgroups, no accounting.
ClusterName=ocbench
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPidFile=$ctld_pid
SlurmdPidFile=$slurmd_pid
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
$node State=UNKNOWN
PartitionName=ocbench Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
)
changed=0
if [ ! -e "$conf" ] || [ "$(cat "$conf")" != "$new" ]; then
	printf '%s\n' "$new" >"$conf"
	changed=1
	echo "$name: wrote $conf ($node)"
fi

if [ ! -s /etc/munge/munge.key ]; then
	mkdir -p /etc/munge
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
	chown munge:munge /etc/munge/munge.key 2>/dev/null || true
	chmod 0400 /etc/munge/munge.key
	echo "$name: made a munge key"
fi
if ! running "$munge_pid"; then
	mkdir -p /run/munge /var/log/munge /var/lib/munge
	chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
	runuser -u munge -- /usr/sbin/munged
	echo "$name: started munged"
fi

if [ "$changed" = 1 ]; then
	stop "$slurmd_pid" slurmd
	stop "$ctld_pid" slurmctld
fi
if ! running "$ctld_pid"; then
	slurmctld
	echo "$name: started slurmctld"
fi
if ! running "$slurmd_pid"; then
	slurmd
	echo "$name: started slurmd"
fi

# Wait for the node to take jobs (at most 60 s).
state=""
for _ in $(seq 120); do
	state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
	case $state in
	idle* | mixed* | allocated*) break ;;
	esac
	sleep 0.5
done
case $state in
idle* | mixed* | allocated*) ;;
*)
	echo "$name: node $host is \"$state\" after 60 s, not idle; $(sinfo -h -N -o '%N %T %E' 2>&1)" >&2
	exit 1
	;;
esac
echo "install-slurm: Slurm $(sinfo -V | awk '{print $2}') on $host: $(sinfo -h -o '%P %D node, %c CPUs, %m MB, %T')"
