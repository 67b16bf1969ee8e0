"""CUDA -> HIP translation: token-exact renaming, HIPSCAN markers, an optional hipcc check."""

from hipscan.translate.options import TranslateOptions
from hipscan.translate.outputs import TranslateError
from hipscan.translate.result import FileTranslation
from hipscan.translate.tree import translate_tree

__all__ = ["FileTranslation", "TranslateError", "TranslateOptions", "translate_tree"]
