"""The mathematical core: numbers, configurations, the dynamics in each arithmetic and their bounds."""
