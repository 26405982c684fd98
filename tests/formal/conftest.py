"""Fixtures of the kernel tests: configurations whose certificates use every D7 fate."""

from __future__ import annotations

from typing import Any

import pytest

from verify.claims import check_configuration
from verify.core.config import parse_configuration

# Leaders (1, 1), (1, -1), (-1, -1); (1, 0) ties with the first two and sits at their mean (a
# fixed token, D7 (b)); (1/2, 1/2) locks onto token 0 and (1/2, 0) onto {0, 1, 2}; (-1/12, 1/12)
# first leads at layer 1.
EVERY_FATE = {"tokens": [["1", "1"], ["1", "-1"], ["1", "0"], ["-1", "-1"], ["1/2", "1/2"], ["1/2", "0"],
                         ["-1/12", "1/12"]],
              "alpha": "1/2"}


def claims_report(data: dict[str, Any]) -> dict[str, Any]:
    config = parse_configuration(data, outside_hypotheses=True)
    return check_configuration(config, cross_check=False).to_json_dict()


@pytest.fixture(scope="session")
def every_fate_report() -> dict[str, Any]:
    report = claims_report(EVERY_FATE)
    assert {f["kind"] for f in report["fates"]} == {"leader", "fixed", "locked"}, report["fates"]
    return report
