"""The report's figures (verify.app.report.figures): no text past the figure's edge, no legend over the data.

Each figure function is run as the report runs it, on records shaped like a campaign's: every
family of the default campaign (12 with the worked ones, long names included), four alphas,
d = 2 and 3. The records are made here (synthetic numbers; the worked panels recompute the
worked configurations' exact trajectories themselves).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from figure_checks import legends_over_content, saved_figures, text_outside
from matplotlib.figure import Figure

from verify.app.report import figures
from verify.core.worked import WORKED_CONFIGURATIONS

FAMILIES = ("close_pairs", "collinear", "coplanar", "dense_spd", "diagonal", "generic", "hull_edges",
            "ill_conditioned", "mirror_ties", "near_origin", "sphere_ties")
ALPHAS = ("1/10", "1/2", "2", "355/113")
LAYERS = 30


def _series(rng: np.random.Generator, alpha: Fraction) -> dict[str, Any]:
    start = float(rng.uniform(0.5, 3))
    lock = int(rng.integers(0, 6))
    distance = [start if k < lock else start * (1 + float(alpha)) ** -(k - lock) for k in range(LAYERS + 1)]
    drift = np.maximum(1e-17 * rng.uniform(0, 5, LAYERS + 1), 0)
    differs = int(rng.integers(1, LAYERS)) if rng.uniform() < 0.3 else None
    if differs is not None:
        drift[differs:] = rng.uniform(1e-3, 2)
    return {"convergence": {"max_A_distance": distance},
            "float_comparison": {"max_abs_difference": drift.tolist(), "first_differing_layer": differs,
                                 "first_undecided_layer": differs if differs is not None and rng.uniform() < 0.5
                                 else None},
            "denominator_bits": [int(8 + (2 + float(alpha)) * k + rng.integers(0, 4)) for k in range(LAYERS + 1)]}


def _generated(index: int, family: str, rng: np.random.Generator) -> dict[str, Any]:
    alpha = ALPHAS[index % len(ALPHAS)]
    d = 2 + index % 2
    n = int(rng.integers(3, 13))
    tokens = [[str(Fraction(int(x), 7)) for x in rng.integers(-7, 8, d)] for _ in range(n)]
    fates = [{"token": i, "kind": "leader" if i < 2 else "locked", "layer": 0 if i < 2 else int(rng.integers(0, 11)),
              "limit": tokens[i % 2]} for i in range(n)]
    return {"task": {"kind": "generated", "family": family, "name": f"{family}-{index}", "seed": 0},
            "configuration": {"tokens": tokens, "alpha": alpha}, "status": "certified", "fates": fates,
            **_series(rng, Fraction(alpha))}


def _worked(name: str, rng: np.random.Generator) -> dict[str, Any]:
    config = WORKED_CONFIGURATIONS[name].to_json_dict()
    fates = [{"token": i, "kind": "leader" if i % 3 == 0 else "locked", "layer": i % 4,
              "limit": config["tokens"][i - i % 3]} for i in range(len(config["tokens"]))]
    return {"task": {"kind": "worked", "family": "worked", "name": name, "seed": 0}, "configuration": config,
            "status": "certified", "fates": fates, **_series(rng, Fraction(str(config.get("alpha", "1"))))}


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    rng = np.random.default_rng(0)
    made = [_worked(name, rng) for name in sorted(WORKED_CONFIGURATIONS)]
    made += [_generated(i, family, rng) for i, family in enumerate(FAMILIES * 3)]
    return made


def _drawn(draw: Callable[..., Any], records: list[dict[str, Any]], out: Path) -> Figure:
    with saved_figures() as saved:
        info = draw(records, out)
    assert info is not None and saved, f"{draw.__name__} drew nothing"
    return saved[0]


@pytest.mark.slow  # matplotlib draws for seconds per figure
@pytest.mark.parametrize("draw", [figures.worked_panels, figures.convergence_figure, figures.float_figure,
                                  figures.denominator_figure, figures.leaders_figure], ids=lambda f: f.__name__)
def test_no_text_past_the_edge_and_no_legend_over_the_data(draw, records, tmp_path) -> None:
    fig = _drawn(draw, records, tmp_path)
    assert text_outside(fig) == []
    assert legends_over_content(fig) == []


def test_twelve_families_get_twelve_distinct_hues(records, tmp_path) -> None:
    """The families of the float and denominator figures: one distinct colour each, no pale pairs."""
    fig = _drawn(figures.denominator_figure, records, tmp_path)
    (legend,) = fig.legends
    colours = [handle.get_color() for handle in legend.legend_handles]
    assert len(colours) == len(FAMILIES) + 1 == len(set(colours))
    for colour in colours:  # none pale: every hue at least as dark as tab10's grey
        assert sum(int(colour[i:i + 2], 16) for i in (1, 3, 5)) <= 3 * 0xcc


@pytest.mark.slow  # matplotlib draws for seconds
def test_the_float_figure_keeps_its_legend_with_its_panel_and_draws_zero_at_zero(records, tmp_path) -> None:
    fig = _drawn(figures.float_figure, records, tmp_path)
    left = next(ax for ax in fig.get_axes() if "drifts" in ax.get_title())
    legend = left.get_legend()
    assert legend is not None and legend.get_title().get_text() == "family (this panel)"
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[:len(FAMILIES) + 1] == sorted([*FAMILIES, "worked"])
    # Under its own panel, not beside the other one.
    box, panel = legend.get_window_extent(), left.get_window_extent()
    assert box.y1 <= panel.y0 and box.x0 >= panel.x0 - 1 and box.x1 <= panel.x1 + 60
    # Exact agreement is 0 on the axis, not an invented 1e-20: a scale that has a zero.
    assert left.get_yscale() == "symlog" and left.get_ylim()[0] == 0
    # One style per family: 12 families, 12 colours, 12 markers.
    styles = [(h.get_color(), h.get_marker()) for h in legend.legend_handles[:len(FAMILIES) + 1]]
    assert len({c for c, _ in styles}) == len({m for _, m in styles}) == len(FAMILIES) + 1


@pytest.mark.slow  # matplotlib draws for seconds
def test_the_convergence_legend_writes_alpha_as_the_tables_do(records, tmp_path) -> None:
    fig = _drawn(figures.convergence_figure, records, tmp_path)
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert any(label.startswith("alpha = 0.1 (") for label in labels), labels
    assert not any("1/10" in label for label in labels)


@pytest.mark.slow  # matplotlib draws for seconds
@pytest.mark.parametrize("draw", [figures.worked_panels, figures.convergence_figure, figures.float_figure,
                                  figures.denominator_figure, figures.leaders_figure], ids=lambda f: f.__name__)
def test_every_figure_is_drawn_for_the_page_and_says_how_large_its_text_is(draw, records, tmp_path) -> None:
    """Drawn as wide as report.html shows it, no text under 8 points, and the PNG says so (verify.core.figure_text)."""
    from verify.core.figure_text import declared_text_px, png_size, smallest_text_px

    fig = _drawn(draw, records, tmp_path)
    info = draw(records, tmp_path)
    png = (tmp_path / info.png).read_bytes()
    assert png_size(png)[0] == round(figures.WIDTH_INCHES * figures.DPI)
    assert declared_text_px(png) == pytest.approx(smallest_text_px(fig, figures.DPI), abs=0.01)
    assert declared_text_px(png) >= round(8 * figures.DPI / 72, 2)


def test_the_checker_sees_text_that_is_cut(tmp_path) -> None:
    """The measure itself: a label placed past the right edge, and a long title, are reported."""
    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xlabel("a label far too long for a figure only three inches wide, cut at both ends")
    ax.annotate("ridiculously", (0.99, 0.5), xycoords="axes fraction")
    problems = text_outside(fig)
    assert any("far too long" in p and "left and right" in p for p in problems)
    assert any("ridiculously" in p and "right" in p for p in problems)


def test_the_checker_sees_a_legend_over_the_data_or_over_a_label() -> None:
    fig = Figure(figsize=(4, 3), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    ax.plot([0, 1], [0, 1], label="a curve")
    ax.legend(loc="center")
    fig.supxlabel("a label under the legend")
    fig.legend(handles=ax.get_legend_handles_labels()[0], loc="outside lower center")
    problems = legends_over_content(fig)
    assert any("lies over the axes" in p for p in problems)
    assert any("a label under the legend" in p for p in problems), problems


def _two_designs() -> dict[str, Any]:
    """A figure's worth of leader control: four tokens, two matrices A with different leaders (docs/theory.md D10)."""
    return {"configuration": "square", "tokens": [["1", "0"], ["0", "1"], ["-1", "0"], ["0", "-1"]],
            "designs": [{"leaders": [0, 2], "A": [["2", "0"], ["0", "1"]],
                         "targets": [{"token": 1, "target": 0}, {"token": 3, "target": 2}]},
                        {"leaders": [1, 3], "A": [["1", "0"], ["0", "2"]],
                         "targets": [{"token": 0, "target": 1}, {"token": 2, "target": 3}]}]}


@pytest.mark.slow  # matplotlib draws for seconds
def test_the_leader_control_figure_names_its_axes_and_its_marks(tmp_path) -> None:
    from verify.experiments.control.study import draw_two_clusterings

    with saved_figures() as saved:
        draw_two_clusterings(_two_designs(), tmp_path / "two.png")
    fig = saved[0]
    assert text_outside(fig) == []
    assert legends_over_content(fig) == []
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel()
    legend_texts = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert any("leader" in t for t in legend_texts) and any("A-norm" in t for t in legend_texts)


@pytest.mark.slow  # matplotlib draws for seconds per figure
def test_figures_drawn_side_by_side_are_the_bytes_drawn_one_by_one(records, tmp_path) -> None:
    serial = figures.write_figures(records, tmp_path / "serial", jobs=1)
    forked = figures.write_figures(records, tmp_path / "forked", jobs=2)
    assert len(serial) == len(figures.FIGURES)  # the records support every figure
    assert forked == serial
    for info in serial:
        for name in filter(None, (info.png, info.svg)):
            assert (tmp_path / "forked" / name).read_bytes() == (tmp_path / "serial" / name).read_bytes(), name


def _broken_figure(records: Any, out_dir: Path) -> None:
    raise RuntimeError("a figure that cannot be drawn")


def test_a_figure_that_fails_in_a_forked_drawer_fails_the_call(records, tmp_path, monkeypatch) -> None:
    """Never a report with a figure silently missing: the drawer's error reaches the caller."""
    monkeypatch.setattr(figures, "FIGURES", (figures.leaders_figure, _broken_figure))
    with pytest.raises(RuntimeError, match="cannot be drawn"):
        figures.write_figures(records, tmp_path, jobs=2)
