"""The application layer: the command line and what it drives.

The command line (cli) and its subcommands (commands), the verification campaign (campaign),
the report built from it (report), the mutation self-test (selftest), Ctrl-C and SIGTERM
handling (interrupts), and where the project's saved results and a user's own files live
(locations). Modules here may import every other layer; ``verify/__main__.py`` and the
``hardmax-verify`` console script start ``cli``.
"""
