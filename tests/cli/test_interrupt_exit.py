"""A stop is a stop: Ctrl-C wrapped in another error (numba re-raises it as ImportError) exits 130, not 4."""

from __future__ import annotations

from typing import Any

import verify.app.commands.check as check_command
from verify.app.cli import main


def _interrupted_import(*args: Any, **kwargs: Any) -> Any:
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        raise ImportError("numba._devicearray failed to import") from None


def _broken(*args: Any, **kwargs: Any) -> Any:
    raise ImportError("a genuinely missing module")


def test_an_interrupt_inside_an_import_error_exits_130(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(check_command, "load_configuration", _interrupted_import)
    assert main(["check", str(tmp_path / "any.json")]) == 130
    assert "could not complete" not in capsys.readouterr().err


def test_an_import_error_alone_still_exits_4(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(check_command, "load_configuration", _broken)
    assert main(["check", str(tmp_path / "any.json")]) == 4
    assert "could not complete" in capsys.readouterr().err
