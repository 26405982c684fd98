#!/usr/bin/env bash
# Regenerate the atlas (the report's "Open questions, measured" section, docs/sweep.md): one sweep
# per measured question of docs/theory.md §6, on the grid of scripts/atlas.toml, into RUNS/atlas/
# (default runs/atlas); the emergence sweep (last_leader_layer) also runs the worst-case optimiser
# in every cell (--optimise EMERGENCE_OPTIMISE probes) and certifies its best beside the extreme. Each RUNS/atlas/MEASUREMENT/ keeps sweep.json, sweep.md, sweep.csv and the
# figures (flattened beside them, as the report copies them). The sweeps' own folders stay in
# RUNS/atlas/.work/ (not tracked): the resume state, and certificates/ with each certified
# extreme's claims report (`hardmax-verify certcheck FILE` re-verifies it; megabytes, so not
# committed: this script regenerates them). Then the general-A census (grid scripts/atlas_general_a.toml) into
# RUNS/atlas/general_a/ (census.json, claims.png and counterexamples/, each a claims report that
# `hardmax-verify certcheck FILE` re-verifies), and the digest of the committed control study
# (runs/control/study.json) into RUNS/atlas/leader_control/. The same grid gives the same files. Exits with the
# worst status (0 every extreme certified and every counterexample re-verified).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
OUT="${1:-runs/atlas}"
# The optimiser's exact probes per cell of the emergence sweep (about a minute in all on one core).
EMERGENCE_OPTIMISE=200
status=0
for measurement in last_leader_layer constancy_layer; do
    work="$OUT/.work/$measurement"
    code=0
    optimise=()
    [ "$measurement" = last_leader_layer ] && optimise=(--optimise "$EMERGENCE_OPTIMISE")
    "$PY" -m verify sweep "$measurement" --out "$work" --grid scripts/atlas.toml ${optimise[@]+"${optimise[@]}"} \
        || code=$?
    case "$code" in
        0|1|3) [ "$code" -gt "$status" ] && status=$code ;;
        *) echo "atlas: the $measurement sweep did not complete (exit $code)" >&2; exit "$code" ;;
    esac
    final="$OUT/$measurement"
    rm -rf "$final"
    mkdir -p "$final"
    cp "$work"/sweep.json "$work"/sweep.md "$work"/sweep.csv "$final"/
    cp "$work"/figures/*.png "$final"/
done
code=0
"$PY" -m verify.experiments.conjectures.atlas_census general-a --grid scripts/atlas_general_a.toml \
    --out "$OUT/general_a" || code=$?
case "$code" in
    0|3) [ "$code" -gt "$status" ] && status=$code ;;
    *) echo "atlas: the general-A census did not complete (exit $code)" >&2; exit "$code" ;;
esac
"$PY" -m verify.experiments.conjectures.atlas_census leader-control --study runs/control/study.json \
    --out "$OUT/leader_control"
exit "$status"
