#!/usr/bin/env bash
# Refresh reports/published/, the snapshot of the default report kept in the repository for
# browsing: run the default report into reports/latest/ (not tracked), then copy its report.md
# and PNG figures (not results.json, report.html or SVG: megabytes regenerated on every run).
# Extra arguments go to `hardmax-verify report` (e.g. --jobs 2). Exits with the report's status;
# publishes whenever a report was written (0 certified, 1 failed, 3 inconclusive).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

status=0
"$PY" -m verify report --out reports/latest "$@" || status=$?
case "$status" in
    0|1|3) ;;
    *) echo "publish-report: the report did not complete (exit $status); reports/published/ unchanged" >&2
       exit "$status" ;;
esac

staging="$(mktemp -d reports/.published.XXXXXX)"
trap 'rm -rf "$staging"' EXIT
cp reports/latest/report.md "$staging/"
(cd reports/latest && find figures -name '*.png' -print0) | while IFS= read -r -d '' png; do
    mkdir -p "$staging/$(dirname "$png")"
    cp "reports/latest/$png" "$staging/$png"
done
chmod 755 "$staging"
rm -rf reports/published
mv "$staging" reports/published
trap - EXIT
echo "published reports/published/ (report.md and $(find reports/published -name '*.png' | wc -l) figures)" >&2
exit "$status"
