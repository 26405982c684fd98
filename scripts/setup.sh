#!/usr/bin/env bash
# One-step set-up on a fresh machine: system libraries, then the project with every extra.
# Idempotent: re-running it on a set-up machine only re-checks.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=0
for pkg in libcdd-dev libgmp-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt=1
done
if [ "$need_apt" = 1 ]; then
    # pycddlib has no Linux wheel; it compiles against Debian's cddlib and GMP.
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libcdd-dev libgmp-dev >/dev/null
fi

PY="${PYTHON:-python3}"
# constraints.txt pins every version behind "same seed, same results" (torch==2.13.0: the CPU
# wheel that lies on these machines, no CUDA download).
"$PY" -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[sentiment,distributed,dev]"
