"""Choices that shape the emitted HIP tree."""

from __future__ import annotations

from dataclasses import dataclass

LAUNCH_SYNTAXES = ("chevron", "hip")
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".tcc", ".ipp")
SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".cu.cc")


@dataclass(frozen=True)
class TranslateOptions:
    hip_ext: str = ".hip"  # what a .cu file becomes
    rename_suffixes: tuple[str, ...] = (".cu",)
    roc: bool = False  # prefer roc* library names where the table has them
    launch_syntax: str = "chevron"  # chevron: keep <<<>>>; hip: hipLaunchKernelGGL(...)
    force: bool = False  # replace outputs edited since they were written (never foreign files)
    config: object | None = None  # hipscan.config.ScanConfig, for the front end's parse flags

    def __post_init__(self) -> None:
        if self.launch_syntax not in LAUNCH_SYNTAXES:
            raise ValueError(f"launch syntax must be one of {LAUNCH_SYNTAXES}")
        if not self.hip_ext.startswith(".") or "/" in self.hip_ext:
            raise ValueError(f"invalid extension {self.hip_ext!r}: expected e.g. .hip")
