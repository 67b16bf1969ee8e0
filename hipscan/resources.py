"""Where the packaged rule files, templates and data live, installed or in a source checkout."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def _dir(package: str, checkout_folder: str) -> Path:
    try:
        path = Path(str(resources.files(package)))
        if path.is_dir():
            return path
    except (ModuleNotFoundError, TypeError):
        pass
    return _CHECKOUT / checkout_folder


def rules_dir() -> Path:
    """The built-in rule files (top-level ``rules/`` in the source tree)."""
    return _dir("hipscan._rules", "rules")


def templates_dir() -> Path:
    """The jinja2 templates (top-level ``templates/`` in the source tree)."""
    return _dir("hipscan._templates", "templates")
