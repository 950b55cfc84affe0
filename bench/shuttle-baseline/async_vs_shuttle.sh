#!/usr/bin/env bash
# Regenerates results/async_vs_shuttle.csv: rankcheck-rt's async tasks
# (rankcheck_rt::future) against awslabs/shuttle's (shuttle::future) on the
# same body (src/bodies.rs, async_yields: three tasks under block_on, each
# incrementing a shared counter then yielding, 5 times), compiled once with
# each tool's types. Rows: executions per second of each tool's random
# scheduler, ROUNDS rounds, the tools alternating, SECONDS_EACH each.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5} SECONDS_EACH=${SECONDS_EACH:-2}
cargo build --release --offline --manifest-path bench/shuttle-baseline/Cargo.toml
B=bench/shuttle-baseline/target/release/shuttle-baseline
out=results/async_vs_shuttle.csv
echo "round,tool,program,scheduler,seed,executions,seconds,executions_per_s" > "$out"
for round in $(seq 1 "$ROUNDS"); do
  for tool in shuttle rankcheck-rt; do
    $B throughput --tool "$tool" --program async-yields --seconds "$SECONDS_EACH" --seed "$round" |
      awk -v r="$round" 'NR > 1 { print r "," $0 }' >> "$out"
  done
done
echo "wrote $out"
