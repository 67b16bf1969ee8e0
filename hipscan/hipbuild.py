"""Whether a project already builds for HIP: a HIP build path in its build files, HIP arms in code.

Such a project is partly ported: the effort model then prices what the HIP build still compiles
wrongly (the findings outside the HIP arms), not a hipify run and a new build. The build-file
patterns are data (``hipscan/data/hip_build.toml``); the macros that mark a HIP arm are those of
``platforms.toml``. Build files are not C++, so a line scan is the right reader for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from hipscan.platforms import hip_build, hip_choice

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


@dataclass(frozen=True, slots=True)
class HipEvidence:
    """One sign of a HIP build: where, and what it is."""

    path: str
    line: int
    kind: str  # build | source
    what: str  # "HIP language", "#ifdef __HIP_PLATFORM_AMD__"

    def to_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "kind": self.kind, "what": self.what}

    def __str__(self) -> str:
        return f"{self.path}:{self.line} ({self.what})"


@lru_cache(maxsize=1)
def _patterns() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    text = resources.files("hipscan.data").joinpath("hip_build.toml").read_text("utf-8")
    return {
        tool: [(k, re.compile(v)) for k, v in table.items()] for tool, table in tomllib.loads(text).items()
    }


def _tool(name: str) -> str:
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name == "setup.py":
        return "setuptools"
    return "make"


def build_evidence(root: Path, build_files: list[Path]) -> list[HipEvidence]:
    """The first line of each build file that shows a HIP build, per pattern."""
    out: list[HipEvidence] = []
    patterns = _patterns()
    for f in sorted(build_files):
        tool = _tool(f.name)
        try:
            text = f.read_text("utf-8", errors="replace")
            rel = f.relative_to(root).as_posix()
        except (OSError, ValueError):
            continue
        seen: set[str] = set()
        for n, line in enumerate(text.splitlines(), 1):
            code = line.split("#", 1)[0]
            for what, pattern in patterns.get(tool, ()):
                if what not in seen and pattern.search(code):
                    seen.add(what)
                    out.append(HipEvidence(rel, n, "build", what))
    return out


def source_evidence(facts: list) -> list[HipEvidence]:
    """Branches only a HIP build compiles (a HIP arm: taken there, not in an NVIDIA build), once
    per file. A branch both builds take (`defined(USE_CUDA) || defined(USE_HIP)`) is shared code."""
    marks = hip_build()
    out: dict[str, HipEvidence] = {}
    for ff in facts:
        for b in ff.branches:
            if b.loc.path in out or not b.chain:
                continue
            in_hip, in_cuda = hip_choice(b.chain, marks)
            if in_hip is True and in_cuda is False:
                kind, text = b.chain[-1]
                what = f"#{kind} {text}" if kind != "else" else f"#else of #{b.chain[0][0]} {b.chain[0][1]}"
                out[b.loc.path] = HipEvidence(b.loc.path, b.loc.line, "source", " ".join(what.split())[:80])
    return [out[p] for p in sorted(out)]
