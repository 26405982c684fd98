#!/usr/bin/env bash
# Regenerate the atlas (the report's "Open questions, measured" section, docs/sweep.md): one sweep
# per measured question of docs/theory.md §6, on the grid of scripts/atlas.toml, into RUNS/atlas/
# (default runs/atlas). Each RUNS/atlas/MEASUREMENT/ keeps sweep.json, sweep.md, sweep.csv and the
# figures (flattened beside them, as the report copies them). The sweeps' own folders stay in
# RUNS/atlas/.work/ (not tracked): the resume state, and certificates/ with each certified
# extreme's claims report (`hardmax-verify certcheck FILE` re-verifies it; megabytes, so not
# committed: this script regenerates them). The same grid gives the same files. Exits with the
# worse sweep status (0 every extreme certified).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
OUT="${1:-runs/atlas}"
status=0
for measurement in last_leader_layer constancy_layer; do
    work="$OUT/.work/$measurement"
    code=0
    "$PY" -m verify sweep "$measurement" --out "$work" --grid scripts/atlas.toml || code=$?
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
exit "$status"
