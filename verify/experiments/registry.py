"""The experiments whose saved results the verification report shows: one table, in the report's order.

Each entry is an experiment's section provider (the protocol of :mod:`verify.experiments.sections`):
the sentiment reproduction, the earlier sentiment study, the conjecture lab, the atlas of measured open
questions, exact classification, leader control.
The report (:mod:`verify.app.report`) reads this table and imports no experiment itself; a new
experiment's section is one entry here.
"""

from __future__ import annotations

from verify.experiments.classify import report_section as classify_section
from verify.experiments.conjectures import atlas_section
from verify.experiments.conjectures import report_section as conjecture_section
from verify.experiments.control import report_section as control_section
from verify.experiments.sections import SectionProvider
from verify.experiments.sentiment import report_section as sentiment_section
from verify.experiments.sentiment import reproduction_section

__all__ = ["SECTION_PROVIDERS"]

# Section key -> provider, in the order the report shows them.
SECTION_PROVIDERS: dict[str, SectionProvider] = {
    provider.key: provider for provider in (reproduction_section, sentiment_section, conjecture_section, atlas_section,
                                            classify_section, control_section)}
