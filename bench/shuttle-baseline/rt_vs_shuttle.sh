#!/usr/bin/env bash
# Regenerates results/rt_vs_shuttle.csv: rankcheck-rt against awslabs/shuttle
# on the same Rust programs (src/bodies.rs, compiled once with each tool's
# types). Rows: executions per second of each tool's random scheduler
# (ROUNDS rounds, the tools alternating, SECONDS each), and executions until
# the corner-variable bug at HOT = 400 (shuttle's PCT at depth 2, rankcheck-rt's
# PCTVB at d = 2, v = 1, its 20 preparatory runs counted), seeds 0..SEEDS-1.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3} SECONDS_EACH=${SECONDS_EACH:-3} SEEDS=${SEEDS:-30}
cargo build --release --offline --manifest-path bench/shuttle-baseline/Cargo.toml
B=bench/shuttle-baseline/target/release/shuttle-baseline
out=results/rt_vs_shuttle.csv
echo "measure,round,tool,program,scheduler,hot,depth,seed,value" > "$out"
for round in $(seq 1 "$ROUNDS"); do
  for program in fig02-noassert locked-counter mutex-counter flag-handoff; do
    for tool in shuttle rankcheck-rt; do
      $B throughput --tool "$tool" --program "$program" --seconds "$SECONDS_EACH" --seed "$round" |
        awk -F, -v r="$round" 'NR > 1 { print "executions_per_s," r "," $1 "," $2 "," $3 ",,," $4 "," $7 }' >> "$out"
    done
  done
done
$B pct-until-bug --hot 400 --seeds "$SEEDS" --depth 2 --cap 1000000 2>/dev/null |
  awk -F, 'NR > 1 { print "executions_until_bug,1," $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7 }' >> "$out"
$B rt-until-bug --hot 400 --seeds "$SEEDS" --depth 2 --vars 1 --cap 1000000 |
  awk -F, 'NR > 1 { print "executions_until_bug,1," $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7 }' >> "$out"
echo "wrote $out"
