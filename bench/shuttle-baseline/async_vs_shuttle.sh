#!/usr/bin/env bash
# Regenerates results/async_vs_shuttle.csv: async task switches, rankcheck-rt's
# futures (rankcheck_rt::future::{spawn, block_on, yield_now}) against
# shuttle's (shuttle::future::{spawn, block_on, yield_now}) on the same bodies
# (src/bodies.rs: async-yield, async-counter). Rows: executions per second of
# each tool's random scheduler, ROUNDS rounds, the tools alternating, SECONDS
# each. Run it under `nice -n 10` on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5} SECONDS_EACH=${SECONDS_EACH:-3}
cargo build --release --offline --manifest-path bench/shuttle-baseline/Cargo.toml
B=bench/shuttle-baseline/target/release/shuttle-baseline
out=results/async_vs_shuttle.csv
echo "measure,round,tool,program,scheduler,seed,value" > "$out"
for round in $(seq 1 "$ROUNDS"); do
  for program in async-yield async-counter; do
    for tool in shuttle rankcheck-rt; do
      $B throughput --tool "$tool" --program "$program" --seconds "$SECONDS_EACH" --seed "$round" |
        awk -F, -v r="$round" 'NR > 1 { print "executions_per_s," r "," $1 "," $2 "," $3 "," $4 "," $7 }' >> "$out"
    done
  done
done
echo "wrote $out"
