"""The softmax command states its numbers on the safe side (docs/softmax.md): bounds rounded up,
margins rounded down, from the exact fraction; a round-to-nearest text would state a number below
the proven bound (the configuration below is one where it did)."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from verify.app.cli import main as cli_main
from verify.core.softmax_bound import decimal_text, readable_decimal

ROUND = {"tokens": [["-1/6", "7"], ["5/4", "-8/3"], ["-1", "3/2"], ["1/3", "-3/2"], ["-9/4", "4/5"]],
         "alpha": "1/2", "beta": "100", "layers": 6}


def _printed(text: str) -> Fraction:
    mantissa, _, exponent = text.partition("e")
    return Fraction(mantissa) * Fraction(10) ** int(exponent or 0)


@pytest.mark.parametrize("x, up, down", [
    (Fraction(273316, 10 ** 16), "2.74e-11", "2.73e-11"),
    (Fraction(9995, 1000), "1.00e+1", "9.99e+0"),
    (Fraction(1), "1.00e+0", "1.00e+0"),
    (Fraction(-27331, 10 ** 4), "-2.73e+0", "-2.74e+0"),
    (Fraction(1, 3 * 10 ** 5000), "3.34e-5001", "3.33e-5001"),
    (Fraction(10 ** 5000 + 1), "1.01e+5000", "1.00e+5000"),
    (Fraction(0), "0", "0"),
])
def test_decimal_text_rounds_in_the_stated_direction(x: Fraction, up: str, down: str) -> None:
    assert decimal_text(x, rounding="up") == up
    assert decimal_text(x, rounding="down") == down
    assert _printed(up) >= x >= _printed(down)


@pytest.mark.parametrize("x, up, down", [
    (Fraction(142, 100), "1.42", "1.42"),          # the radius R of examples/softmax.json: not 1.42e+0
    (Fraction(1), "1", "1"),                      # ||A|| of the identity: not 1.00e+0
    (Fraction(911, 10 ** 4), "0.0911", "0.0911"),
    (Fraction(9995, 1000), "10", "9.99"),
    (Fraction(-27331, 10 ** 4), "-2.73", "-2.74"),
    (Fraction(273316, 10 ** 16), "2.74e-11", "2.73e-11"),
    (Fraction(12345), "1.24e+4", "1.23e+4"),
    (Fraction(1, 3 * 10 ** 5000), "3.34e-5001", "3.33e-5001"),
])
def test_readable_decimal_writes_the_same_digits_as_a_measurement_is_written(x: Fraction, up: str, down: str) -> None:
    assert readable_decimal(x, rounding="up") == up and readable_decimal(x, rounding="down") == down
    # The same number as decimal_text's, on the same side of x.
    assert _printed(up) == _printed(decimal_text(x, rounding="up")) >= x
    assert _printed(down) == _printed(decimal_text(x, rounding="down")) <= x


def test_decimal_text_needs_a_direction() -> None:
    with pytest.raises(ValueError, match="rounding"):
        decimal_text(Fraction(1, 3), rounding="nearest")


def test_the_printed_certified_bound_is_not_below_the_proven_one(tmp_path: Path, capsys: Any) -> None:
    config = tmp_path / "round.json"
    config.write_text(json.dumps(ROUND), encoding="utf-8")
    out = tmp_path / "out.json"
    assert cli_main(["softmax", str(config), "--json", str(out)]) == 0
    output = capsys.readouterr().out
    record = json.loads(out.read_text(encoding="utf-8"))
    proven = Fraction(record["softmax_certificate"]["records"][-1]["bound"])
    stated = re.search(r"eps_6 <= (\S+)", output.replace("\n", " "))
    assert stated is not None, output
    # Round to nearest gives 2.73e-11 here, below the proven 2.7331...e-11.
    assert f"{float(proven):.2e}" == "2.73e-11" and stated.group(1) == "2.74e-11"
    assert _printed(stated.group(1)) >= proven
    for layer in record["softmax_certificate"]["records"]:
        assert _printed(layer["bound_approx"]) >= Fraction(layer["bound"])
        if layer["margin"] is not None:
            assert _printed(layer["margin_approx"]) <= Fraction(layer["margin"])


def test_the_checkers_own_rounding_agrees_with_the_commands() -> None:
    """The checker rounds the records' approximations itself; both rules must give the same text."""
    from fractions import Fraction

    from verify.certcheck import softmax as softmax_checker
    from verify.core.softmax_bound import decimal_text

    samples = [Fraction(27331, 10 ** 15), Fraction(9995, 1000), Fraction(-9995, 1000), Fraction(1, 3),
               Fraction(10) ** 5000 + 1, Fraction(1, 10 ** 5000 + 7), Fraction(123456789, 1000), Fraction(1)]
    for x in samples:
        assert softmax_checker._decimal(x, upward=True) == decimal_text(x, rounding="up"), x
        assert softmax_checker._decimal(x, upward=False) == decimal_text(x, rounding="down"), x
