"""The experiments layer: studies built on the engines and the claim checks.

The sentiment experiment (sentiment), exact sequence classification (classify), the conjecture
lab (conjectures), leader control (control), the IMDb reviews the first two share (imdb), the
protocol by which an experiment provides its section of the verification report (sections) and
the one list of those sections (registry). Modules here import the core and claims layers, the public strategies (the
conjecture lab) and the shared modules of this package. An experiment imports no other
experiment, with one exception: the conjecture lab states conjectures about leader control, so it
imports control and the independent checker that re-verifies control's certificates. Nothing here
imports the app layer (docs/architecture.md has the table of what imports what).
"""
