"""CLI subcommands, one module each; :mod:`verify.app.cli` registers every module listed in COMMANDS."""

# (module under verify.app.commands, attribute holding the click command or group)
COMMANDS: list[tuple[str, str]] = [
    ("simulate", "simulate"),
    ("selftest", "selftest"),
    ("sentiment", "sentiment"),
    ("check", "check"),
    ("report", "report"),
    ("conjecture", "conjecture"),
    ("certcheck", "certcheck"),
    ("prove", "prove"),
    ("classify", "classify"),
    ("control", "control"),
    ("softmax", "softmax"),
    ("examples", "examples"),
]
