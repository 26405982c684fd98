"""Every field of every file kind the suite writes, changed in turn: the checker rejects it, or says it does not check it.

The files are the suite's own (tests/common/field_flip.py says what a flip is and what answers are
acceptable): the shared small report's results.json with the project's saved results as its
sections, claims reports of `check` (one settled by D7 fates, one by a closed-form chain, one with a
non-vacuous T4), softmax records (one that holds, one that stops, one outside the hypotheses),
control results (realised, impossible) and a leader-sets result, and a classification network with
its data. The slow lane flips one place of every distinct pattern of each file (in the sections, whose
copied fields are compared whole, down to SECTION_DEPTH); the fast lane a sample of each.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.common.field_flip import Answer, Flip, certcheck_answer, flips, judge, one_per_pattern, sample
from tests.common.saved_results import copy_saved_results
from verify import certcheck
from verify.app.cli import main as cli_main
from verify.claims import check_configuration
from verify.claims.run import similarity_evidence
from verify.core.config import parse_configuration
from verify.core.exact_dynamics import exact_layers
from verify.core.similarity import FORMAT as SIMILARITY_FORMAT, Similarity, check_similarity, score_matrix
from verify.core.worked import WORKED_CONFIGURATIONS
from verify.certcheck import classify as classify_checker

REPO = Path(__file__).resolve().parents[2]
FAST_SAMPLE = 25  # places per file in the fast lane


def _decoded(text: str) -> Any:
    return json.loads(text, parse_float=certcheck.DecimalText)  # as the checker reads a file


@pytest.fixture(scope="module")
def files(small_report: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, dict[str, Any]]]:
    """name -> (decoded file, the checker's options)."""
    from verify.app.report.build import collect_optional_sections

    root = tmp_path_factory.mktemp("flip")
    runs = copy_saved_results(root)
    results = _decoded((small_report / "results.json").read_text(encoding="utf-8"))
    optional, inputs = collect_optional_sections(runs, "runs")
    for block in optional.values():
        for figure in block.get("figures", []):
            figure.pop("source")  # where the report copies a figure from: not written to results.json
    results["optional_sections"], results["inputs"] = _decoded(json.dumps(optional)), inputs
    out: dict[str, tuple[Any, dict[str, Any]]] = {"results.json": (results, {"runs": str(runs)})}

    def claims(config: Any) -> dict[str, Any]:
        return _decoded(json.dumps(check_configuration(config, cross_check=False, layer_budget=60).to_json_dict()))

    out["claims (D7 fates)"] = (claims(parse_configuration(json.loads((REPO / "examples" / "example.json").read_text()))), {})
    out["claims (non-vertex limits)"] = (claims(WORKED_CONFIGURATIONS["non_leader_clusters"]), {})
    chain = [["-1", "-1/2"], ["-1", "1/2"], ["-1", "0"], ["-1", "1/4"], ["-1", "-1/4"]]
    out["claims (closed-form chain)"] = (claims(parse_configuration({"tokens": chain, "alpha": "1/2"})), {})
    square = parse_configuration(json.loads((REPO / "examples" / "rotating_square.json").read_text()),
                                 outside_hypotheses=True)
    out["claims (similarity, D11)"] = (claims(square), {})
    # The atlas's general-A census: a failed T3 (a limit outside K) and a failed D2 (a norm that decreases), both
    # re-verified (docs/theory.md §6).
    out["claims (D2 and T3 counterexamples)"] = (_decoded((REPO / "runs" / "atlas" / "general_a" / "counterexamples" /
                                                           "indefinite-T3.json").read_text(encoding="utf-8")), {})

    def command(*argv: str) -> Any:
        target = root / "out.json"
        assert cli_main([*argv, "--json", str(target)]) in (0, 1, 3)
        return _decoded(target.read_text(encoding="utf-8"))

    softmax_input = root / "softmax.json"
    softmax_input.write_text((REPO / "examples" / "softmax.json").read_text())
    out["softmax (holds)"] = (command("softmax", str(softmax_input)), {})
    out["softmax (stops)"] = (command("softmax", str(softmax_input), "--beta", "100"), {})
    outside = root / "outside.json"
    outside.write_text(json.dumps({"tokens": [["1", "1"], ["1", "1"], ["-1", "0"]], "alpha": "1/2"}))
    out["softmax (outside the hypotheses)"] = (command("softmax", str(outside), "--beta", "100", "--layers", "3",
                                                       "--outside-hypotheses"), {})
    control = str(REPO / "examples" / "control.json")
    out["control (realised)"] = (command("control", control, "--leaders", "0,2"), {})
    out["control (impossible)"] = (command("control", control, "--leaders", "0,1"), {})
    out["leader sets"] = (command("control", control, "--all-leader-sets"), {})
    assert out["claims (closed-form chain)"][0]["fates"][2]["kind"] == "path"
    assert out["claims (similarity, D11)"][0]["stopped_by"] == "similarity"
    assert out["softmax (stops)"][0]["softmax_certificate"]["stop"] is not None
    assert out["control (impossible)"][0]["outcome"] == "impossible"
    return out


# --------------------------------------------------------------------------- the witnesses' oracle


def _verdict_of(data: Any, path: tuple) -> tuple[dict, dict, str, tuple] | None:
    """(the run holding the place, its configuration, the claim, the path inside its certificate), or None."""
    for i, part in enumerate(path):
        if part == "verdicts" and i + 2 < len(path) and path[i + 2] == "certificate":
            run = data
            for step in path[:i]:
                run = run[step]
            config = run.get("config") or run.get("configuration")
            return run, config, path[i + 1], path[i + 3:]
    return None


def _F(x: Any) -> Fraction:
    return Fraction(str(x))


def _dot(a: Any, b: Any) -> Fraction:
    return sum((_F(x) * _F(y) for x, y in zip(a, b)), Fraction(0))


def _leader_limits(certificate: dict) -> dict[int, list]:
    return {f["token"]: f["limit"] for f in certificate.get("fates", [])
            if f.get("kind") == "leader" or (f.get("kind") == "path" and f.get("set") == [f.get("token")])}


def witness_still_proves(flip: Flip) -> bool:
    """The test's own arithmetic: does a changed witness (a direction, a value, multipliers, D1 weights) still
    prove its claim? Witnesses are not unique (docs/certificates.md), so a changed one may stand."""
    found = _verdict_of(flip.data, flip.path)
    if found is None or flip.what in ("removed", "added", "string for an object"):
        return False
    run, config, claim, inner = found
    certificate = run["verdicts"][claim]["certificate"]
    try:
        if claim == "T2" and inner[:1] == ("vertices",) and inner[2:3] == ("direction",):
            entry = certificate["vertices"][inner[1]]
            limits = _leader_limits(certificate)
            return all(_dot(entry["direction"], entry["limit"]) > _dot(entry["direction"], limits[u])
                       for u in limits if u != entry["token"])
        if claim == "T3" and inner[:1] == ("boundary",) and inner[2:3] in (("direction",), ("value",)):
            entry = certificate["boundary"][inner[1]]
            value = _F(entry["value"])
            return (any(_F(c) for c in entry["direction"]) and value == _dot(entry["direction"], entry["limit"])
                    and all(_dot(entry["direction"], u) <= value for u in _leader_limits(certificate).values()))
        if claim == "T4" and inner[:1] == ("projections",) and inner[2:3] in (("direction",), ("face_value",)):
            entry = certificate["projections"][inner[1]]
            limits = _leader_limits(certificate)
            top = _F(entry["face_value"])
            exposed = sorted(u for u, p in limits.items() if _dot(entry["direction"], p) == top)
            return exposed == entry["face"] and all(_dot(entry["direction"], p) <= top for p in limits.values())
        if claim == "D1" and inner[:1] == ("weights",) and len(inner) == 5 and inner[4] == 0:
            k, i = inner[1], inner[2]
            layers = _positions(config, k + 1)
            pairs = certificate["weights"][k][i]
            combination = [sum((_F(w) * layers[k][j][r] for j, w in pairs), Fraction(0)) for r in range(len(layers[k][0]))]
            return all(0 <= j < len(layers[k]) for j, _ in pairs) and combination == list(layers[k + 1][i])
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
        return False
    return False


def _positions(config: dict, last: int) -> list[list[tuple]]:
    out = []
    for layer in exact_layers(config["tokens"], alpha=config["alpha"], A=config.get("A")):
        out.append([tuple(p) for p in layer.positions()])
        if layer.index >= last:
            return out
    return out


def similarity_still_holds(flip: Flip) -> bool:
    """The suite's own check of a changed similarity certificate (verify/core/similarity.py, docs/theory.md D11): it
    holds on the run's layers, ends at its last layer, no token leads before it, and the limits sentence is its own."""
    path = flip.path
    if flip.what in ("removed", "added", "string for an object") or path[:4] != ("verdicts", "T0", "evidence",
                                                                                   "similarity"):
        return False
    run = flip.data
    cert, config = run["verdicts"]["T0"]["evidence"]["similarity"], run["config"]
    try:
        M = tuple(tuple(_F(x) for x in row) for row in cert["M"])
        q = cert["contraction_power"]
        candidate = Similarity(int(cert["layer"]), int(cert["period"]), M, tuple(int(j) for j in cert["relabelling"]),
                               _F(cert["scale"]), None if q is None else int(q))
        A = [[_F(x) for x in row] for row in config["A"]]
        layers = _positions(config, candidate.end)
        if (cert["format"] != SIMILARITY_FORMAT or candidate.end != run["last_layer"]
                or not check_similarity(layers, A, candidate)):
            return False
        limits = similarity_evidence(SimpleNamespace(similarity=candidate))["limits"]
        if run["verdicts"]["T0"]["evidence"].get("limits", limits) != limits:
            return False
        for positions in layers[:candidate.end]:
            scores = score_matrix(positions, A)
            if any(max(row) == row[i] and row.count(row[i]) == 1 for i, row in enumerate(scores)):
                return False  # a leader: C_i = {i}
        return True
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
        return False


# --------------------------------------------------------------------------- the softmax record's oracle


def softmax_record_true(record: Any) -> bool:
    """The test's own check of a softmax record (docs/theory.md §6), exact where the checker is and with mpmath at
    80 digits for the exponential: is every statement of the (changed) record true? A larger beta or eta, or a
    token moved where the margins stay the same, leaves a certificate true; the checker may then verify it."""
    import mpmath

    from verify.core.softmax_bound import decimal_text, operator_norm_upper

    try:
        config, cert = record["config"], record["softmax_certificate"]
        Z = [tuple(_F(x) for x in t) for t in config["tokens"]]
        n, d = len(Z), len(Z[0])
        alpha = _F(config["alpha"])
        A = None if config.get("A") is None else [[_F(x) for x in row] for row in config["A"]]
        M = A or [[Fraction(int(r == c)) for c in range(d)] for r in range(d)]
        beta, R, norm, gamma = (_F(cert[k]) for k in ("beta", "radius", "norm_bound", "gamma"))
        records, stop, layers = cert["records"], cert["stop"], cert["layers"]
        last = len(records) - 1
        outside = any(not any(z) for z in Z) or len(set(Z)) < n or (A is not None and (
            any(A[r][c] != A[c][r] for r in range(d) for c in range(r)) or not _positive_definite(A)))
        _, method = operator_norm_upper(A)
        frobenius = sum((x * x for row in M for x in row), Fraction(0))
        holder = (max(sum((abs(M[r][c]) for r in range(d)), Fraction(0)) for c in range(d))
                  * max(sum((abs(x) for x in row), Fraction(0)) for row in M))
        holds = stop is None and last == layers
        facts = [record.get("command") == "softmax", cert["kind"] == "softmax-certificate", cert["n"] == n,
                 _F(cert["alpha"]) == alpha, alpha > 0, beta > 0, gamma == alpha / (1 + alpha),
                 R >= 0 and R * R >= max(sum((x * x for x in z), Fraction(0)) for z in Z),
                 norm >= 0 and norm * norm >= min(frobenius, holder), cert["norm_method"] == method,
                 cert["approx_rounding"] == {"bound_approx": "up", "margin_approx": "down"},
                 cert["certified_through"] == last, cert["holds"] is holds, 0 < len(records) <= layers + 1,
                 record["status"] == ("certified" if holds else "inconclusive"),
                 ("outside_hypotheses" in record) == ("outside_hypotheses" in config),
                 record.get("outside_hypotheses", True) is True and config.get("outside_hypotheses", True) is True,
                 not outside or record.get("outside_hypotheses") is True,
                 "beta" not in config or _F(config["beta"]) == beta, "layers" not in config or config["layers"] == layers,
                 stop is not None or last == layers]
        if not all(facts):
            return False
        bounds = [_F(r["bound"]) for r in records]
        margins = [None if r["margin"] is None else _F(r["margin"]) for r in records]
        etas = [None if r["eta"] is None else _F(r["eta"]) for r in records]
        if bounds[0] != 0 or any(r["layer"] != k for k, r in enumerate(records)) or any(
                r["bound_approx"] != decimal_text(b, rounding="up") or r["margin_approx"] != (
                    None if m is None else decimal_text(m, rounding="down")) for r, b, m in zip(records, bounds, margins)):
            return False
        mpmath.mp.dps = 80
        positions = Z
        for k in range(last + 1):
            if k == last and stop is None:
                return True
            points = sorted(set(positions))
            scores = {u: {v: _dot([_dot(row, u) for row in M], v) for v in points} for u in points}
            tie = None
            margin = None
            for u in points:
                best = max(scores[u].values())
                top = [v for v in points if scores[u][v] == best]
                if len(top) > 1 and tie is None:
                    tie = (u, top)
                rest = [x for x in scores[u].values() if x != best]
                if rest:
                    margin = best - max(rest) if margin is None else min(margin, best - max(rest))
            eps, eta = bounds[k], etas[k]
            if k == last and stop["reason"] == "tie":
                token, pair = stop["token"], stop["tokens"]
                u = positions[token]
                best = max(scores[u].values())
                return (tie is not None and stop["layer"] == k and len(pair) == 2 and positions[pair[0]] != positions[pair[1]]
                        and all(scores[u][positions[j]] == best for j in pair) and stop["explanation"] == (
                            f"layer {k}: token {token}'s attention set holds two distinct positions (tokens {pair[0]} and "
                            f"{pair[1]} tie for its top score)"))
            if tie is not None or margins[k] != margin:
                return False
            if (margin is not None or eta is not None) and not (eta is not None and eta >= norm * eps * (2 * R + eps)):
                return False
            if k == last:
                return (stop["reason"] == "margin" and stop["layer"] == k and stop["token"] is None and stop["tokens"] is None
                        and margin is not None and eta is not None and margin <= 2 * eta and stop["explanation"] == (
                            f"layer {k}: the margin delta is at most 2 eta (the score error the bound allows)"))
            if margin is None or eta is None:
                if bounds[k + 1] < eps:
                    return False
            else:
                if not margin > 2 * eta:
                    return False
                increase = bounds[k + 1] - eps
                weight = 2 * gamma * (R + eps) * (n - 1)
                needed = mpmath.mpf(weight.numerator) / weight.denominator * mpmath.exp(
                    -mpmath.mpf((beta * (margin - 2 * eta)).numerator) / (beta * (margin - 2 * eta)).denominator)
                if weight and not (increase > 0 and mpmath.mpf(increase.numerator) / increase.denominator > needed):
                    return False
                if not weight and increase < 0:
                    return False
            new = []
            for z in positions:
                best = max(scores[z].values())
                top = [v for v in positions if scores[z][v] == best]
                mean = tuple(sum(col, Fraction(0)) / len(top) for col in zip(*top))
                new.append(tuple((a + alpha * b) / (1 + alpha) for a, b in zip(z, mean)))
            positions = new
        return True
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, AttributeError):
        return False


def _positive_definite(S: list) -> bool:
    S = [list(row) for row in S]
    for p in range(len(S)):
        if S[p][p] <= 0:
            return False
        for r in range(p + 1, len(S)):
            f = S[r][p] / S[p][p]
            S[r] = [a - f * b for a, b in zip(S[r], S[p])]
    return True


# --------------------------------------------------------------------------- the files of certcheck


def impossibility_still_true(flip: Flip) -> bool:
    """An impossible control result with a token moved: its certificate may not involve that token, and then it
    still proves that no SPD A makes the listed tokens lead (the product's own check, verify/experiments/control)."""
    from verify.experiments.control.constraints import Constraint, certificate_matrix, check_certificate, system

    data = flip.data
    if not (data.get("outcome") == "impossible" and flip.path[:2] == ("configuration", "tokens") and flip.what == "number"):
        return False
    try:
        tokens = [tuple(_F(x) for x in t) for t in data["configuration"]["tokens"]]
        block = data["infeasibility"]
        weights = {Constraint(w["token"], w["attends_to"], w["rival"]): _F(w["y"]) for w in block["weights"]}
        targets = {e["token"]: e["target"] for e in data["requested_targets"]}
        if check_certificate(tokens, weights, system(len(tokens), data["leaders"], targets)) is not None:
            return False
        return certificate_matrix(tokens, weights) == [[_F(x) for x in row] for row in block["S"]] and len(set(tokens)) == len(tokens)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False


def _still_true(flip: Flip) -> bool:
    if isinstance(flip.data, dict) and "softmax_certificate" in flip.data:
        return softmax_record_true(flip.data)
    if isinstance(flip.data, dict) and flip.data.get("format") == "hardmax-verify/control-v1":
        return impossibility_still_true(flip)
    return witness_still_proves(flip) or similarity_still_holds(flip)


def _holes(data: Any, options: dict[str, Any], paths: list[tuple] | None) -> list[str]:
    schema = certcheck.schema_of(data)
    baseline = certcheck_answer(copy.deepcopy(data), **options).status
    holes = []
    for flip in flips(data, paths=paths):
        # A flip outside the sections is checked without their saved files (hashing them is most of a check):
        # they are then not checked, and the flip must still be rejected.
        here = options if flip.path[0] in ("optional_sections", "inputs") or "runs" not in options else {
            **options, "runs": str(Path(options["runs"]) / "absent")}
        answer = certcheck_answer(flip.data, **here)
        hole = judge(flip, answer, schema, oracle=_still_true, baseline=baseline)
        if hole is not None:
            holes.append(f"{flip.what} at {'.'.join(map(str, flip.path))}: {hole}")
    return holes


NAMES = ["results.json", "claims (D7 fates)", "claims (non-vertex limits)", "claims (closed-form chain)",
         "claims (similarity, D11)", "claims (D2 and T3 counterexamples)",
         "softmax (holds)", "softmax (stops)", "softmax (outside the hypotheses)", "control (realised)",
         "control (impossible)", "leader sets"]


def test_the_untouched_files_verify(files: dict[str, tuple[Any, dict[str, Any]]]) -> None:
    for name, (data, options) in files.items():
        before = copy.deepcopy(data)
        answer = certcheck_answer(data, **options)
        assert data == before, f"the checker changed the {name} it read (flips share the untouched parts)"
        # An impossible control result is a verified certificate that its statement is false: exit 1, nothing rejected.
        # So is a failed T0 with its similarity certificate (docs/theory.md D11), and a failed D2 or T3 re-verified.
        false = name in ("control (impossible)", "claims (similarity, D11)", "claims (D2 and T3 counterexamples)")
        assert (answer.status, answer.rejected) == ((1, False) if false else (0, False)), (name, answer.text[-2000:])


@pytest.mark.parametrize("name", NAMES)
def test_a_sample_of_flips_is_rejected_or_named_not_checked(files: dict[str, tuple[Any, dict[str, Any]]],
                                                             name: str) -> None:
    data, options = files[name]
    holes = _holes(data, options, sample(data, FAST_SAMPLE, seed=len(name)))
    assert not holes, "\n".join(holes[:20])


# In a section, a copied field is compared whole with its saved file (and every check hashes the saved files): its
# places are flipped down to this depth (optional_sections.KEY.files[].FIELD.PART), not every leaf below.
SECTION_DEPTH = 5


def _every_place(data: Any) -> list[tuple]:
    places, seen = [], set()
    for path in one_per_pattern(data):
        if path[0] in ("optional_sections", "inputs"):
            path = path[:SECTION_DEPTH]
            if path in seen:
                continue
            seen.add(path)
        places.append(path)
    return places


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_field_flipped_is_rejected_or_named_not_checked(files: dict[str, tuple[Any, dict[str, Any]]],
                                                              name: str) -> None:
    data, options = files[name]
    holes = _holes(data, options, _every_place(data))
    assert not holes, f"{len(holes)} holes:\n" + "\n".join(holes[:40])


# --------------------------------------------------------------------------- a classification network


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    root = tmp_path_factory.mktemp("network")
    data_path = REPO / "examples" / "classify.data.json"
    assert cli_main(["classify", "build", str(data_path), "--out", str(root / "net.json")]) == 0
    return _decoded((root / "net.json").read_text(encoding="utf-8")), json.loads(data_path.read_text())


def _network_answer(network: Any, data: Any) -> Answer:
    try:
        result = classify_checker.check_objects(network, data)
    except classify_checker.BadInput as error:
        return Answer(2, str(error), ())
    except Exception:  # noqa: BLE001 - a crash is a hole too
        import traceback
        return Answer(4, traceback.format_exc(), ())
    return Answer(result.exit_status, result.summary() + "\n" + "\n".join(result.unchecked_lines()),
                  tuple(row.pattern for row in result.unchecked))


def _replayed_by_the_product(flip: Flip, data: Any) -> bool:
    """The product's own exact forward pass (verify/experiments/classify/network.py): the changed network still
    classifies every sequence and still computes the outputs it records, so the file states nothing false."""
    from verify.experiments.classify.network import forward, initial_state, network_from_json, to_fraction

    try:
        net = network_from_json(flip.data)
        outputs = flip.data["classification"]["outputs"]
        tokens: dict[tuple, int] = {}
        sequences = [[tokens.setdefault(tuple(Fraction(str(c)) for c in token), len(tokens)) for token in sequence]
                     for sequence in data["sequences"]]
        final = forward(net, initial_state([list(t) for t in tokens], sequences))
        for n, label in enumerate(data["labels"]):
            for point, _ in final.sequence_points(n):
                value = [to_fraction(c) for c in point]
                if value[0] != Fraction(str(label)) or value != [Fraction(str(c)) for c in outputs[n]]:
                    return False
        return True
    except Exception:  # noqa: BLE001 - a network the product cannot read is not a true file
        return False


def _network_holes(network: Any, data: Any, paths: list[tuple] | None) -> list[str]:
    holes = []
    for flip in flips(network, paths=paths):
        answer = _network_answer(flip.data, data)
        hole = judge(flip, answer, classify_checker.NETWORK, oracle=lambda f: _replayed_by_the_product(f, data))
        if hole is not None:
            holes.append(f"{flip.what} at {'.'.join(map(str, flip.path))}: {hole}")
    return holes


def test_a_classification_network_s_flips_are_rejected_or_named_not_checked(network: tuple[Any, Any]) -> None:
    net, data = network
    assert _network_answer(copy.deepcopy(net), data).status == 0
    holes = _network_holes(net, data, sample(net, FAST_SAMPLE, seed=1))
    assert not holes, "\n".join(holes[:20])


@pytest.mark.slow
def test_every_field_of_a_classification_network_flipped(network: tuple[Any, Any]) -> None:
    net, data = network
    holes = _network_holes(net, data, None)
    assert not holes, f"{len(holes)} holes:\n" + "\n".join(holes[:40])



def test_the_softmax_oracle_holds_the_untouched_records_true_and_a_tampered_one_false(
        files: dict[str, tuple[Any, dict[str, Any]]]) -> None:
    for name in ("softmax (holds)", "softmax (stops)", "softmax (outside the hypotheses)"):
        record = copy.deepcopy(files[name][0])
        assert softmax_record_true(record), name
        record["softmax_certificate"]["records"][1]["bound"] = "0"
        assert not softmax_record_true(record), name
