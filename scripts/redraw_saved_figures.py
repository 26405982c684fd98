"""Redraw the saved results' figures from the committed files they show, with the experiments' own drawing code.

    python scripts/redraw_saved_figures.py            # rewrite every figure below that its inputs allow
    python scripts/redraw_saved_figures.py --check    # change nothing; exit 1 if a figure lacks its text size

A figure of the saved results (runs/) is drawn when its experiment runs; when only the drawing
changes (a legend, a label, the size of its text), this redraws it from the committed data,
without rerunning anything:

* the training curves of each analysed checkpoint, from its history (``models/NAME/checkpoint.json``);
* its leader words, from ``runs/sentiment/analysis/analysis.json``;
* the protocols' summary figures, from ``runs/sentiment/summary/summary.json`` and
  ``runs/sentiment/longer-training-summary/summary.json``;
* the leader-control figure, from ``runs/control/study.json``;
* the classification scaling figure, from ``runs/classify/scaling.json`` (bench/classify.py's).

The token-evolution figures of single reviews (and their GIFs) need the reviews themselves:
with ``--data PATH`` (the IMDb reviews, as ``hardmax-verify sentiment`` takes them) they are
redrawn for the test rows analysis.json records, and the leaders each figure shows must be the
ones analysis.json recorded. Each file is written atomically. ``--check`` lists the figures under runs/ that do not declare
their smallest text (verify.core.figure_text), which the report's browser test measures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from verify.core.figure_text import declared_text_px  # noqa: E402
from verify.core.io import atomic_write_bytes  # noqa: E402
from verify.experiments.control.study import draw_two_clusterings  # noqa: E402
from verify.experiments.sentiment.analyze import _plot_history, _plot_words, plot_review_evolution  # noqa: E402
from verify.experiments.sentiment.checkpoints import checkpoint_corpus, read_checkpoint  # noqa: E402
from verify.experiments.sentiment.summary import _figures as summary_figures  # noqa: E402

RUNS = REPO / "runs"


def _written(draw, target: Path) -> None:
    """Draw into a temporary file, then put it in place atomically."""
    with tempfile.TemporaryDirectory() as folder:
        drawn = Path(folder) / target.name
        draw(drawn)
        atomic_write_bytes(target, drawn.read_bytes())
    print(f"redrew {target.relative_to(REPO)}", file=sys.stderr)


def redraw_sentiment() -> None:
    analysis = json.loads((RUNS / "sentiment" / "analysis" / "analysis.json").read_text(encoding="utf-8"))
    for record in analysis.get("checkpoints", []):
        model = Path(record["path"]).name
        prefix = RUNS / "sentiment" / "analysis" / f"{model}_"
        curves = prefix.with_name(prefix.name + "training_curves.png")
        if curves.exists():
            meta = read_checkpoint(REPO / record["path"]).meta
            subset = meta.get("train_subset")
            _written(lambda p, meta=meta, model=model, subset=subset: _plot_history(
                meta["history"], p, model, subset if isinstance(subset, dict) else None), curves)
        words = prefix.with_name(prefix.name + "leader_words.png")
        top = (record.get("leader_words") or {}).get("top")
        if words.exists() and top:
            selected = (record.get("leader_words") or {}).get("reviews_selected")
            _written(lambda p, top=top, model=model, selected=selected: _plot_words(
                [tuple(t) for t in top], p, model, selected), words)


def redraw_reviews(data: Path, cache_dir: Path | None) -> None:
    """The token evolution of each review analysis.json plotted, from the reviews at ``data``."""
    analysis = json.loads((RUNS / "sentiment" / "analysis" / "analysis.json").read_text(encoding="utf-8"))
    for record in analysis.get("checkpoints", []):
        plotted = record.get("reviews_plotted") or {}
        if not plotted:
            continue
        model = Path(record["path"]).name
        checkpoint = read_checkpoint(REPO / record["path"])
        weights = checkpoint.best or checkpoint.weights
        corpus, _ = checkpoint_corpus(checkpoint, data, cache_dir=cache_dir)
        for name, review in plotted.items():
            png = RUNS / "sentiment" / "analysis" / f"{model}_review_{name}.png"
            with tempfile.TemporaryDirectory() as folder:
                drawn = Path(folder) / png.name
                shown = plot_review_evolution(weights, corpus.ids[review["test_row"]], corpus.vocabulary.words,
                                              layers=review["layers"], png=drawn, gif=drawn.with_suffix(".gif"),
                                              title=f"{model}: {name} test review {review['test_row']}, "
                                                    f"layers 0..{review['layers']}")
                if shown["leaders"] != review["leaders"]:
                    raise SystemExit(f"{png.name}: the leaders drawn ({shown['leaders']}) are not analysis.json's "
                                     f"({review['leaders']}): not the analysed data")
                atomic_write_bytes(png, drawn.read_bytes())
                atomic_write_bytes(png.with_suffix(".gif"), drawn.with_suffix(".gif").read_bytes())
            print(f"redrew {png.relative_to(REPO)} and its GIF", file=sys.stderr)


def redraw_summaries() -> None:
    for folder in (RUNS / "sentiment" / "summary", RUNS / "sentiment" / "longer-training-summary"):
        if (folder / "summary.json").is_file():
            _redraw_summary(folder)


def _redraw_summary(folder: Path) -> None:
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as scratch:
        for drawn in summary_figures(summary["tables"], Path(scratch)):
            target = folder / Path(drawn).name
            if target.exists():
                atomic_write_bytes(target, Path(drawn).read_bytes())
                print(f"redrew {target.relative_to(REPO)}", file=sys.stderr)


def redraw_control() -> None:
    study = json.loads((RUNS / "control" / "study.json").read_text(encoding="utf-8"))
    if study.get("two_clusterings") is not None:
        _written(lambda p: draw_two_clusterings(study["two_clusterings"], p), RUNS / "control" / "two-clusterings.png")


def redraw_classify() -> None:
    spec = importlib.util.spec_from_file_location("bench_classify", REPO / "bench" / "classify.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules["bench_classify"] = bench
    spec.loader.exec_module(bench)
    results = json.loads((RUNS / "classify" / "scaling.json").read_text(encoding="utf-8"))
    _written(lambda p: bench.scaling_figure(results, p), RUNS / "classify" / "scaling.png")


def undeclared() -> list[str]:
    """The PNGs under runs/ that do not declare their smallest text."""
    return sorted(p.relative_to(REPO).as_posix() for p in RUNS.rglob("*.png") if declared_text_px(p.read_bytes()) is None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; list the figures without their text size")
    parser.add_argument("--data", type=Path, default=None, help="the IMDb reviews: also redraw the reviews' figures")
    parser.add_argument("--cache-dir", type=Path, default=None, help="where preprocessed corpora are cached")
    args = parser.parse_args(argv)
    if not args.check:
        if args.data is not None:
            redraw_reviews(args.data, args.cache_dir)
        redraw_sentiment()
        redraw_summaries()
        redraw_control()
        redraw_classify()
    missing = undeclared()
    for path in missing:
        print(f"{path}: declares no text size (drawn before verify.core.figure_text, or needs the reviews to redraw)")
    return 1 if args.check and missing else 0


if __name__ == "__main__":
    sys.exit(main())
