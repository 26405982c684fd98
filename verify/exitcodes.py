"""Exit statuses shared by every command (DEVELOPERS.md conventions)."""

SUCCESS = 0          # everything certified / conjecture held / certificates verified / variants caught
FALSE = 1            # something checked came out false
BAD_INPUT = 2        # bad input or usage
INCONCLUSIVE = 3     # nothing false, but something inconclusive
COULD_NOT_COMPLETE = 4  # I/O error, resource limit, internal error: no verdict
INTERRUPTED = 130    # stopped by Ctrl-C; nothing half-written is left behind


def combine(statuses: "list[str]") -> int:
    """Exit status for a list of verdict statuses ('certified' / 'failed' / 'inconclusive')."""
    if any(s == "failed" for s in statuses):
        return FALSE
    if any(s == "inconclusive" for s in statuses):
        return INCONCLUSIVE
    return SUCCESS
