"""The experiments layer: studies built on the engines and the claim checks.

The sentiment experiment (sentiment), exact sequence classification (classify), the conjecture
lab (conjectures), leader control (control), the IMDb reviews the first two share (imdb), the
protocol by which an experiment provides its section of the verification report (sections) and
the one list of those sections (registry). Modules here import the core and claims layers, the public strategies (the
conjecture lab) and the shared modules of this package; an experiment never imports another
experiment, nor the app layer (docs/architecture.md has the table of what imports what).
"""
