#!/usr/bin/env bash
# One-step set-up on a fresh machine: system libraries, then the project with every extra.
# Idempotent: re-running it on a set-up machine only re-checks.
set -euo pipefail
cd "$(dirname "$0")/.."

# pycddlib has no Linux wheel; it compiles against Debian's cddlib and GMP. The browser tests
# render the report in Debian's headless Chromium through its chromedriver. Coq (8.16.1 in
# Debian 12) checks the certificates in its kernel (formal/, docs/formal.md).
APT_PACKAGES="libcdd-dev libgmp-dev chromium chromium-driver coq libcoq-stdlib libcoq-bignums"
need_apt=0
for pkg in $APT_PACKAGES; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt=1
done
if [ "$need_apt" = 1 ]; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086  # a list of package names
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $APT_PACKAGES >/dev/null
fi

PY="${PYTHON:-python3}"
# constraints.txt pins every version behind "same seed, same results" (torch==2.13.0: the CPU
# wheel that lies on these machines, no CUDA download).
"$PY" -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[sentiment,distributed,dev]"
# Compile the float engine's kernel and the sentiment training step's attention kernel into
# numba's cache once, here, not in the first run.
"$PY" -c "from verify.core.float_dynamics import compile_ahead; compile_ahead()"
"$PY" -c "from verify.experiments.sentiment.attention_kernel import compile_ahead; compile_ahead()"
# Build the Coq library formal/ once into its cache, not in the first kernel pass.
"$PY" -c "from verify.formal.library import built_library; built_library()"
