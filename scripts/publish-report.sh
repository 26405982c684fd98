#!/usr/bin/env bash
# Refresh reports/published/, the snapshot of the default report kept in the repository: run the
# default report into reports/latest/ (not tracked) from a clean working tree, re-verify it with
# the independent checker, then copy its report.md, results.json and PNG figures (not report.html
# or SVG: megabytes any clone regenerates in a minute).
#
# The snapshot is of one commit: results.json records it (environment.git_commit) with the
# versions it ran with. Commit reports/published/ alone, right after this script, so that the
# commit that publishes the snapshot changes nothing but the snapshot;
# tests/integration/test_published_snapshot.py checks exactly that, and that it still passes
# certcheck. Extra arguments go to `hardmax-verify report` (e.g. --jobs 2). Exits with the
# report's status; publishes whenever a report was written (0 certified, 1 failed, 3
# inconclusive) and the checker did not reject it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "publish-report: the working tree has uncommitted changes; commit them first (the snapshot records the commit it was made from)" >&2
    exit 2
fi

status=0
"$PY" -m verify report --out reports/latest "$@" || status=$?
case "$status" in
    0|1|3) ;;
    *) echo "publish-report: the report did not complete (exit $status); reports/published/ unchanged" >&2
       exit "$status" ;;
esac

checked=0
"$PY" -m verify certcheck reports/latest/results.json > /dev/null || checked=$?
if [ "$checked" -ne 0 ]; then
    echo "publish-report: certcheck did not verify reports/latest/results.json (exit $checked); reports/published/ unchanged" >&2
    exit 4
fi

staging="$(mktemp -d reports/.published.XXXXXX)"
trap 'rm -rf "$staging"' EXIT
cp reports/latest/report.md reports/latest/results.json "$staging/"
(cd reports/latest && find figures -name '*.png' -print0) | while IFS= read -r -d '' png; do
    mkdir -p "$staging/$(dirname "$png")"
    cp "reports/latest/$png" "$staging/$png"
done
chmod 755 "$staging"
rm -rf reports/published
mv "$staging" reports/published
trap - EXIT
echo "published reports/published/ (report.md, results.json and $(find reports/published -name '*.png' | wc -l) figures) of commit $(git rev-parse HEAD)" >&2
echo "now: git add reports/published && git commit -m 'Published report regenerated' (nothing else in that commit)" >&2
exit "$status"
