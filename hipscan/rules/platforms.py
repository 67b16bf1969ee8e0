"""Lines a HIP build for AMD GPUs never compiles, or that a project wrote for AMD already.

Findings in the CUDA arm of a HIP test (`#ifdef USE_ROCM ... #else <CUDA code> #endif`), in its
HIP arm (the project's own HIP code), or in a chain that picks between AMD architectures
(`#ifdef __GFX9__`) describe code that is not part of the port (see hipscan.platforms for how
branches are decided).
"""

from __future__ import annotations

from functools import lru_cache

from hipscan.facts import BranchFact
from hipscan.platforms import Chain, HipBuild, hip_build, hip_choice, tests_amd_arch


def outside_hip_build(branch: BranchFact, build: HipBuild) -> bool:
    """Whether a HIP build for AMD leaves this branch out, only a HIP build compiles it (the
    project's own HIP code, `#define BNB_WARP_SIZE 32 // RDNA`), or the chain picks between AMD
    architectures: either way the project has already decided what AMD compiles here."""
    return _decided(branch.chain, build)


@lru_cache(maxsize=8192)
def _decided(chain: Chain, build: HipBuild) -> bool:  # chains recur across files (include guards)
    if tests_amd_arch(chain, build):
        return True
    on_hip, on_cuda = hip_choice(chain, build)
    return on_hip is False or (on_hip is True and on_cuda is False)


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
