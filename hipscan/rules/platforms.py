"""Lines a HIP build for AMD GPUs never compiles, or that a project wrote for AMD already.

A project partly ported by hand keeps its CUDA-only code in the other arm of a HIP test
(`#ifdef USE_ROCM ... #else <CUDA code> #endif`), and picks AMD variants by architecture
(`#ifdef __GFX9__`). Findings there describe code that is not part of the port. Which macros a
HIP build defines is data (hipscan/data/platforms.toml); the conditions are evaluated with the
preprocessor-expression evaluator, and a condition it cannot decide keeps its findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from hipscan.facts import BranchFact
from hipscan.ppexpr import evaluate

_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class HipBuild:
    defined: re.Pattern[str]
    undefined: frozenset[str]
    amd_arch: re.Pattern[str]

    def values(self, names: set[str]) -> tuple[dict[str, int], tuple[str, ...]]:
        undefined = tuple(n for n in names if n in self.undefined)
        defined = {n: 1 for n in names if n not in self.undefined and self.defined.match(n)}
        return defined, undefined


@lru_cache(maxsize=1)
def hip_build() -> HipBuild:
    text = resources.files("hipscan.data").joinpath("platforms.toml").read_text("utf-8")
    data = tomllib.loads(text)["hip_build"]
    return HipBuild(
        defined=re.compile(data["defined_regex"]),
        undefined=frozenset(data["undefined"]),
        amd_arch=re.compile(data["amd_arch_regex"]),
    )


def _condition(kind: str, text: str) -> str:
    if kind in ("ifdef", "elifdef"):
        return f"defined({text.strip()})"
    if kind in ("ifndef", "elifndef"):
        return f"!defined({text.strip()})"
    return text


def outside_hip_build(branch: BranchFact, build: HipBuild) -> bool:
    """Whether a HIP build for AMD leaves this branch out, or the chain picks between AMD
    architectures: either way the project has already decided what AMD compiles here."""
    names = {n for _kind, text in branch.chain for n in _NAME.findall(text)}
    if any(build.amd_arch.match(n) for n in names):
        return True
    defined, undefined = build.values(names)
    if not defined:
        return False  # a chain that does not test for HIP: nothing to decide here
    *earlier, (kind, text) = branch.chain
    for k, t in earlier:
        if evaluate(_condition(k, t), defined, undefined):
            return True  # an earlier branch is the HIP one
    if kind == "else":
        return False
    value = evaluate(_condition(kind, text), defined, undefined)
    return value == 0


class OffHipLines:
    """Per file, the line spans of branches a HIP build does not compile (see module doc)."""

    def __init__(self, branches: list[BranchFact]) -> None:
        build = hip_build()
        self.spans: dict[str, list[tuple[int, int]]] = {}
        for b in branches:
            if outside_hip_build(b, build):
                self.spans.setdefault(b.loc.path, []).append((b.loc.line, b.end_line))

    def __contains__(self, where: tuple[str, int]) -> bool:
        path, line = where
        return any(start <= line < end for start, end in self.spans.get(path, ()))
