"""CUDA -> HIP translation: token-exact renaming, HIPSCAN markers, an optional hipcc check.

The names below load on first use, so a command that only needs the options (or nothing of the
translator) does not pay for libclang and the API table at start-up.
"""

from __future__ import annotations

from importlib import import_module

_WHERE = {
    "FileTranslation": "hipscan.translate.result",
    "TranslateError": "hipscan.translate.outputs",
    "TranslateOptions": "hipscan.translate.options",
    "translate_tree": "hipscan.translate.tree",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_WHERE[name]), name)
