"""A user measurement for `hardmax-verify sweep examples/my_measurement.py --out sweep-mine` (docs/sweep.md).

A measurement maps the exact run of one configuration (the run `check` makes) to an integer,
or to None where the run does not establish the value. The sweep reports None as "undefined"
and never certifies it. This file is code: the sweep runs it with your rights.
"""

from verify import Measurement


def followers(run):
    """How many tokens end up following another token (tokens that never lead), once the run has settled them."""
    if not run.settled:
        return None
    return sum(1 for fate in run.fates if fate.kind != "leader")


FOLLOWERS = Measurement("followers", "the number of tokens that never lead", followers)
