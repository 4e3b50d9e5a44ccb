#!/bin/bash
# Races throng's ORCA against the RVO2 library (v2.0.2) on RVO2's uniform scene, interleaved,
# as docs/benchmarks.md ("ORCA against RVO2") records. Needs RVO2's source:
#   git clone --branch v2.0.2 https://github.com/snape/RVO2 /tmp/RVO2
# Usage: bench/rvo2/race.sh [RVO2_SOURCE_DIR] (default /tmp/RVO2). Run from the repository
# root, with nothing else running; builds RVO2 with g++ -O3 -fopenmp into /tmp/rvo2-uniform.
set -euo pipefail
src=${1:-/tmp/RVO2}/src
g++ -O3 -fopenmp -std=c++11 -I"$src" bench/rvo2/uniform.cpp "$src"/*.cpp -o /tmp/rvo2-uniform
cargo build --release --quiet
for round in 1 2; do
  for n in 10000 100000; do
    for t in 1 2; do
      for sorted in 0 1; do
        echo "round $round rvo2 n=$n threads=$t sorted=$sorted $(OMP_NUM_THREADS=$t /tmp/rvo2-uniform $n 22 $sorted)"
      done
      # Both of throng's indexes (the k-d tree is the scenario's default; the grid is faster here).
      ./target/release/throng bench scenarios/bench/orca_uniform.toml --agents "$n" --threads "$t" \
        --index kd,grid --json --quiet |
        python3 -c 'import json, sys
for r in json.load(sys.stdin)["results"]:
    print(r["index"], r["ms_per_tick"])' |
        while read -r index ms; do echo "round $round throng n=$n threads=$t index=$index ms_per_tick $ms"; done
    done
  done
done
