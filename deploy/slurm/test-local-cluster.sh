#!/usr/bin/env bash
# Exercise deploy/slurm/nightly.sbatch on a real, single-node Slurm cluster
# started here: install Slurm and munge from the distribution's packages
# (if missing), start munged, slurmctld and slurmd locally with a minimal
# configuration (no cgroups), submit the array job with 4 shards on a small
# suite, merge, and check that the evidence and failures equal those of an
# unsharded run of the same night. Needs root (it installs packages and
# runs the daemons). Everything it starts is stopped when it ends.
#
#   sudo RANKCHECK=target/release/rankcheck deploy/slurm/test-local-cluster.sh
#
# `cargo test` runs it when RANKCHECK_SLURM_TEST=1 (CI sets it) or when
# run as root with sbatch installed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
if [ "$(id -u)" != 0 ]; then
    echo "test-local-cluster.sh: needs root (it installs packages and starts Slurm's daemons)" >&2
    exit 2
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    echo "installing slurm-wlm and munge" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
rankcheck=${RANKCHECK:-}
if [ -z "$rankcheck" ]; then
    (cd "$repo" && cargo build --release --quiet)
    rankcheck=$repo/target/release/rankcheck
fi
rankcheck=$(cd "$(dirname "$rankcheck")" && pwd)/$(basename "$rankcheck")

work=$(mktemp -d /tmp/rankcheck-slurm.XXXXXX)
# munged runs as the munge user: it must reach its directory inside.
chmod 755 "$work"
pids=()
stop() {
    local status=$?
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [ "$status" != 0 ]; then
        for log in "$work"/*.log "$work"/*.out "$work"/munge/*.log "$work"/out/*.out; do
            [ -f "$log" ] && { echo "== $log" >&2; tail -n 30 "$log" >&2; }
        done
    fi
    rm -rf "$work"
    exit "$status"
}
trap stop EXIT

# munge: its own key and socket under $work, so that a munged already
# running on this machine is left alone.
mkdir -p "$work/munge"
chown munge:munge "$work/munge" 2>/dev/null || true
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chown munge:munge "$work/munge/munge.key" 2>/dev/null || true
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munge_user=munge
id munge >/dev/null 2>&1 || munge_user=root
runuser -u "$munge_user" -- munged --foreground --force \
    --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
    --seed-file="$work/munge/munged.seed" >"$work/munged.out" 2>&1 &
pids+=($!)

host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/state" "$work/spool" "$work/out"
cat > "$work/slurm.conf" <<CONF
ClusterName=rankcheck-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=rankcheck Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

# Wait for munged's socket.
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || { echo "munged did not start" >&2; exit 1; }
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
ready=""
for _ in $(seq 300); do
    if sinfo -h -N -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
        ready=yes
        break
    fi
    sleep 0.2
done
[ -n "$ready" ] || { echo "the Slurm node never became idle" >&2; exit 1; }
echo "slurm: single-node cluster up on $host ($cpus CPUs)" >&2

suite=$repo/tests/nightly/suite.toml
budget="--runs 6000 --chunk 256 --seed 1"
night=slurm-test
cd "$work/out"
timeout 600 sbatch --wait --quiet --array=0-3 \
    --export="ALL,RANKCHECK=$rankcheck,SUITE=$suite,OUT=$work/sharded,NIGHT=$night,BUDGET=$budget" \
    "$here/nightly.sbatch"
shards=$(ls "$work/sharded/nights/$night" | wc -l)
[ "$shards" = 4 ] || { echo "expected 4 shard files, found $shards" >&2; exit 1; }
"$rankcheck" merge "$work/sharded" >/dev/null

# The same night, unsharded, on this machine.
set +e
# shellcheck disable=SC2086
"$rankcheck" nightly "$suite" $budget --night "$night" --out "$work/whole" >/dev/null
status=$?
set -e
[ "$status" -le 1 ] || { echo "the unsharded night failed ($status)" >&2; exit 1; }

# Evidence and failures must be identical; only replay file paths (the
# last column) name the shard that wrote them.
for dir in sharded whole; do
    set +e
    "$rankcheck" report "$work/$dir" --format csv | sed 's/,[^,]*$//' > "$work/$dir.csv"
    set -e
done
if ! diff "$work/whole.csv" "$work/sharded.csv"; then
    echo "the Slurm array's merged night differs from the unsharded night" >&2
    exit 1
fi
rows=$(grep -c '^evidence,' "$work/whole.csv")
failures=$(grep -vc -e '^evidence,' -e '^section,' "$work/whole.csv" || true)
echo "slurm: 4 array tasks merged equal the unsharded night ($rows streams, $failures failures)"
