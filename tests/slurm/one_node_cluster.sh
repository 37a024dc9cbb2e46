#!/usr/bin/env bash
# A throwaway one-node Slurm cluster on this machine, for tests:
#   one_node_cluster.sh start DIR   munged, slurmctld and slurmd with a generated key and slurm.conf in DIR;
#                                   prints SLURM_CONF=DIR/slurm.conf once the node is idle
#   one_node_cluster.sh stop DIR    stops the three daemons (whatever state they are in)
# Runs as root (SlurmUser=root), no cgroups: proctrack/linuxproc, task/none.
set -euo pipefail
cmd=${1:?start|stop}
dir=$(realpath -m "${2:?directory}")

stop() {
  for name in slurmd slurmctld munged; do
    [ -f "$dir/$name.pid" ] || continue
    pid=$(cat "$dir/$name.pid")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi

fail() {
  echo "one_node_cluster: $*" >&2
  for log in munged.log slurmctld.log slurmd.log; do
    [ -f "$dir/$log" ] && { echo "--- $log" >&2; tail -n 15 "$dir/$log" >&2; }
  done
  stop
  exit 1
}

mkdir -p "$dir/state" "$dir/spool"
chmod 700 "$dir"
host=$(hostname -s)
cpus=$(nproc)
# Ports of our own, so that clusters of concurrent test runs do not meet.
ctld_port=$((20000 + RANDOM % 20000))
slurmd_port=$((ctld_port + 1))

dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" || fail "munged did not start"

cat > "$dir/slurm.conf" <<CONF
ClusterName=attntune
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
PlugStackConfig=$dir/plugstack.conf
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
: > "$dir/plugstack.conf"
export SLURM_CONF="$dir/slurm.conf"

slurmctld -i || fail "slurmctld did not start"
slurmd || fail "slurmd did not start"
for _ in $(seq 150); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  [ "$state" = idle ] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.2
done
fail "the node did not become idle within 30 s (state: '${state:-none}')"
