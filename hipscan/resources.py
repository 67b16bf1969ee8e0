"""Where the packaged rule files, templates and data live, installed or in a source checkout."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def _dir(package: str, checkout_folder: str) -> Path:
    """The installed data package's folder (a namespace package: no __init__.py), else the checkout's."""
    try:
        spec = importlib.util.find_spec(package)
    except ModuleNotFoundError:
        spec = None
    if spec is not None and spec.submodule_search_locations:
        path = Path(next(iter(spec.submodule_search_locations)))
        if path.is_dir():
            return path
    return _CHECKOUT / checkout_folder


def rules_dir() -> Path:
    """The built-in rule files (top-level ``rules/`` in the source tree)."""
    return _dir("hipscan._rules", "rules")


def templates_dir() -> Path:
    """The jinja2 templates (top-level ``templates/`` in the source tree)."""
    return _dir("hipscan._templates", "templates")
