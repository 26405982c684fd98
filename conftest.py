"""Root pytest configuration: the Hypothesis profile, the fast lane's example count, a private user folder."""

import os
import re

# Under pytest-xdist the workers share the machine's cores: each gets its share of threads for
# torch's and the BLAS's parallel regions (read when they are first imported, so set here),
# instead of every worker's threads spinning against the others'.
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    os.environ.setdefault("OMP_NUM_THREADS",
                          str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

from verify.app.locations import HOME_VARIABLE  # noqa: E402
from verify.core.profiles import load_profile  # noqa: E402
from tests.common.xdist_groups import group_of, shares_a_module_fixture  # noqa: E402

PROFILE = load_profile()

# Shared fixtures: the small report built once per run (tests/common/reports.py).
pytest_plugins = ["tests.common.reports"]

# The fast lane (``-m "not slow"``) runs every property with this many examples, unless a profile
# was chosen explicitly (HYPOTHESIS_PROFILE or --hypothesis-profile); the full suite runs the
# profile's own count (ci 25, dev 60). Enough to exercise each property's strategy on a few
# configurations of each kind, so that a broken rule still fails in the fast lane.
FAST_LANE_EXAMPLES = 10


def leaves_out_slow_tests(markexpr: str) -> bool:
    """True for a mark expression that deselects the tests marked slow: ``not slow``, alone or in a conjunction."""
    return re.search(r"\bnot\s+slow\b", markexpr) is not None


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist: "loadgroup" is "load" (its default with -n) that keeps a group of tests on one
    # worker; see pytest_collection_modifyitems for the groups.
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"
    worker_input = getattr(config, "workerinput", None)  # on a worker: what the controller decided
    if worker_input is not None and worker_input.get("dist") == "loadgroup":
        config.option.loadgroup = True  # the worker then tags each grouped test's node id with its group
    chosen = os.environ.get("HYPOTHESIS_PROFILE") or config.getoption("hypothesis_profile", None)
    if leaves_out_slow_tests(config.getoption("markexpr") or "") and not chosen:
        settings.register_profile("fast-lane", parent=settings.get_profile(PROFILE), max_examples=FAST_LANE_EXAMPLES)
        settings.load_profile("fast-lane")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # type: ignore[no-untyped-def]  # pytest-xdist's hook, on the controller
    node.workerinput["dist"] = node.config.option.dist


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``-n``, the tests of a module that share a module-scoped fixture run on one worker.

    Spread over two workers, such a fixture (a small report, a campaign, a trained model) is
    built once on each: twice the cost for nothing. Session-wide fixtures that are costly build
    once per run instead (tests/common/reports.py).
    """
    if not getattr(config.option, "loadgroup", False):  # not an xdist worker under "loadgroup"
        return
    for item in items:
        if shares_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(group_of(item)))


def pytest_report_header(config: pytest.Config) -> str:
    return f"Hypothesis examples per property: {settings.default.max_examples}"


@pytest.fixture(autouse=True, scope="session")
def _private_user_folder(tmp_path_factory: pytest.TempPathFactory):
    """Commands that write into the user folder by default (``conjecture run``) write here, never in ~."""
    previous = os.environ.get(HOME_VARIABLE)
    os.environ[HOME_VARIABLE] = str(tmp_path_factory.mktemp("user-folder"))
    yield
    if previous is None:
        os.environ.pop(HOME_VARIABLE, None)
    else:
        os.environ[HOME_VARIABLE] = previous
