#!/bin/bash
# Races throng's collision-free speed model and social force against JuPedSim 1.4.2 on one scene
# (bench/jupedsim/scene.py), as docs/benchmarks.md ("CFSM and social force against JuPedSim")
# records. Installs JuPedSim in a virtual environment (/tmp/jps-race, kept between runs), builds
# throng in release mode and runs race.py. Run from the repository root, nothing else running.
#   bench/jupedsim/race.sh [AGENTS ...]        (default 10000 100000)
#   environment: MODELS=cfsm,social_force THREADS=1,2 SKINS=0,auto ROUNDS=2 ITER=50 WARM=10
set -euo pipefail
venv=${JPS_VENV:-/tmp/jps-race}
if ! "$venv/bin/python" -c 'import jupedsim, shapely' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet jupedsim==1.4.2 shapely
fi
cargo build --release --quiet
"$venv/bin/python" bench/jupedsim/race.py "$PWD/target/release/throng" "$@"
