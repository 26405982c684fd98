"""The claims layer: the claim registry, verdicts and the exact check of every claim.

registry holds one record per claim id of docs/theory.md, verdicts the verdict type with its
exact certificate, and checks runs the exact dynamics on a configuration and decides every
registered claim check. Modules here may import the core layer and the independent checker
``verify.certcheck``, never the experiments or app layers.
"""
