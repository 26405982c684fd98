"""Mutation self-test: deliberately wrong dynamics (mutants), known answers, and the runner."""
