"""The experiments layer: studies built on the engines and the claim checks."""
