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

from hipscan.platforms import hip_build

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
    """Preprocessor tests of a HIP build's macros (a HIP arm), once per file."""
    marks = hip_build()
    out: dict[str, HipEvidence] = {}
    for ff in facts:
        for d in ff.directives:
            if d.kind not in ("if", "ifdef", "ifndef", "elif") or d.loc.path in out:
                continue
            hit = next((n for n in d.names if n not in marks.undefined and marks.defined.match(n)), None)
            if hit:
                out[d.loc.path] = HipEvidence(d.loc.path, d.loc.line, "source", f"#{d.kind} {d.text}"[:80])
    return [out[p] for p in sorted(out)]
