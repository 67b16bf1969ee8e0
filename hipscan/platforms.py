"""What a HIP build for AMD GPUs defines in the preprocessor, and which #if branches it takes.

A project partly ported by hand keeps CUDA-only code in the other arm of a HIP test
(`#ifdef USE_ROCM ... #else <CUDA code> #endif`) and puts its own HIP stand-ins in the HIP arm
(`#define __shfl_xor_sync(mask, v, o, w) __shfl_xor(v, o, w)`). Which macros a HIP build defines
is data (hipscan/data/platforms.toml); conditions are evaluated three-valued with hipscan.ppexpr,
so a condition that depends on anything else stays undecided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from hipscan.ppexpr import evaluate

NAME = re.compile(r"[A-Za-z_]\w*")
Chain = tuple[tuple[str, str], ...]  # (kind, text) of an #if chain's directives up to one branch


@dataclass(frozen=True)
class HipBuild:
    defined: re.Pattern[str]
    undefined: frozenset[str]
    amd_arch: re.Pattern[str]
    cuda_switch: re.Pattern[str]  # a project's switch for its CUDA code
    hip_header: re.Pattern[str]  # a project header named for its HIP build
    to_hip: re.Pattern[str]  # a macro body that maps a name onto a HIP one
    not_feature: re.Pattern[str] = re.compile(r"(?!)")  # names never a whole-file feature switch
    not_switch: re.Pattern[str] = re.compile(r"(?!)")  # nor a project's option for its CUDA code
    # switches whose off branch is no feature a team turns on (names in such a branch are not read)
    not_feature_arm: re.Pattern[str] = re.compile(r"(?!)")
    absent: frozenset[str] = frozenset()  # also never defined for AMD; an NVIDIA build defines them
    oldest_device: tuple[tuple[str, int], ...] = ()  # the oldest NVIDIA device pass's values
    compiler_values: tuple[tuple[str, int], ...] = ()  # what hip-clang defines as a clang
    version_macros: tuple[tuple[str, str], ...] = ()  # HIP's version macros: name -> what they hold
    version_values: tuple[tuple[str, int], ...] = ()  # their values for the targeted ROCm release
    # what torch's hipify turns into a HIP macro in a PyTorch extension's sources (`__CUDACC__`)
    torch_defined: frozenset[str] = frozenset()

    def hip_values(self, names: set[str]) -> tuple[dict[str, int], tuple[str, ...]]:
        """Macro values in a HIP build for AMD: markers defined, NVIDIA-only names undefined, the
        HIP version macros at the targeted release (when one is set, see ``for_target``)."""
        undefined = tuple(n for n in names if n in self.undefined)
        defined = {n: 1 for n in names if n not in self.undefined and self.defined.match(n)}
        defined.update((n, v) for n, v in self.version_values if n in names)
        return defined, undefined

    def for_target(self, rocm_version: tuple[int, ...] | None) -> HipBuild:
        """This build for a targeted ROCm release: its HIP version macros get values."""
        if not rocm_version:
            return self
        major, minor, patch = (tuple(rocm_version) + (0, 0, 0))[:3]
        parts = {"major": major, "minor": minor, "patch": patch}
        parts["combined"] = major * 10_000_000 + minor * 100_000 + patch
        values = tuple(sorted((name, parts[what]) for name, what in self.version_macros))
        return replace(self, version_values=values)

    def for_torch_extension(self, on: bool) -> HipBuild:
        """This build as torch.utils.cpp_extension runs it: after torch's hipify, a test of
        `__CUDACC__` reads `__HIPCC__`, so the name counts as defined."""
        if not on or not self.torch_defined:
            return self
        names = self.torch_defined
        values = tuple(sorted(set(self.compiler_values) | {(n, 1) for n in names}))
        return replace(
            self, absent=self.absent - names, undefined=self.undefined - names, compiler_values=values
        )

    def feature_switch(self, name: str) -> bool:
        """Whether a whole-file guard's name may be a project's feature switch: not the
        toolchain's, a platform's or a HIP build's own macro (those say where code compiles)."""
        return not (
            name in self.undefined
            or name in self.absent
            or self.defined.match(name)
            or self.amd_arch.match(name)
            or self.not_feature.match(name)
        )

    def project_option(self, name: str) -> bool:
        """Whether a name in a preprocessor condition may be a project's own option for its CUDA
        code (`PTX`, `VERIFY`, `LEGION_REDOP_HALF`), not a toolchain, platform or back-end macro."""
        return self.feature_switch(name) and not self.not_switch.search(name)

    def cuda_values(self, names: set[str]) -> tuple[dict[str, int], tuple[str, ...]]:
        """In an NVIDIA build every HIP marker is undefined; the rest stays unknown."""
        return {}, tuple(n for n in names if n in self.undefined or self.defined.match(n))


@lru_cache(maxsize=1)
def hip_build() -> HipBuild:
    text = resources.files("hipscan.data").joinpath("platforms.toml").read_text("utf-8")
    doc = tomllib.loads(text)
    data, project = doc["hip_build"], doc["project"]
    return HipBuild(
        defined=re.compile(data["defined_regex"]),
        undefined=frozenset(data["undefined"]),
        amd_arch=re.compile(data["amd_arch_regex"]),
        cuda_switch=re.compile(project["cuda_switch_regex"]),
        hip_header=re.compile(project["hip_header_regex"]),
        to_hip=re.compile(project["to_hip_regex"]),
        not_feature=re.compile(project["not_feature_regex"]),
        not_switch=re.compile(project["not_switch_regex"]),
        not_feature_arm=re.compile(project["not_feature_arm_regex"]),
        absent=frozenset(data.get("absent", ())),
        torch_defined=frozenset(data.get("torch_extension_defined", ())),
        oldest_device=tuple(sorted(data.get("oldest_device", {}).items())),
        compiler_values=tuple(sorted(data.get("compiler_values", {}).items())),
        version_macros=tuple(sorted(data.get("version_macros", {}).items())),
    )


def condition(kind: str, text: str) -> str:
    """The #if expression a directive stands for (`#ifdef X` is `defined(X)`)."""
    if kind in ("ifdef", "elifdef"):
        return f"defined({text.strip()})"
    if kind in ("ifndef", "elifndef"):
        return f"!defined({text.strip()})"
    return text


def taken(chain: Chain, values: dict[str, int], undefined: tuple[str, ...]) -> bool | None:
    """Whether the chain's last branch is compiled under these macro values (None: undecided)."""
    *earlier, (kind, text) = chain
    undecided = False
    for k, t in earlier:
        v = evaluate(condition(k, t), values, undefined)
        if v:
            return False  # an earlier branch is the one taken
        undecided |= v is None
    own = 1 if kind == "else" else evaluate(condition(kind, text), values, undefined)
    if own == 0:
        return False
    return None if undecided or own is None else True


def names_in(chain: Chain) -> set[str]:
    return {n for _kind, text in chain for n in NAME.findall(text)}


def tests_amd_arch(chain: Chain, build: HipBuild) -> bool:
    return any(build.amd_arch.match(n) for n in names_in(chain))


def hip_choice(chain: Chain, build: HipBuild) -> tuple[bool | None, bool | None]:
    """(taken in a HIP build, taken in an NVIDIA build) for a chain that tests for HIP; (None,
    None) when the chain tests nothing a HIP build decides."""
    names = names_in(chain)
    defined, undefined = build.hip_values(names)
    if not defined:
        return None, None
    return taken(chain, defined, undefined), taken(chain, *build.cuda_values(names))


@dataclass(frozen=True)
class Scenario:
    """Macro values of one build, for deciding which branch of a chain it compiles: names it
    defines (with values), names it never defines (0 in `#if`), and the HIP markers, defined as
    1 or not at all; anything else is unknown."""

    values: tuple[tuple[str, int], ...]
    undefined: frozenset[str]
    markers: re.Pattern[str]
    markers_defined: bool

    def takes(self, chain: Chain) -> bool | None:
        names = names_in(chain)
        values = {n: v for n, v in self.values if n in names}
        undefined = {n for n in names if n in self.undefined and n not in values}
        for n in names:
            if n not in values and n not in undefined and self.markers.match(n):
                if self.markers_defined:
                    values[n] = 1
                else:
                    undefined.add(n)
        return taken(chain, values, tuple(undefined))


def hip_scenario(build: HipBuild, absent: frozenset[str] = frozenset()) -> Scenario:
    """A HIP build for AMD: HIP markers defined; nvcc's, the toolkit's and ``absent`` (project
    macros defined only where a HIP build never looks, hipscan.frontend.archmacros) not."""
    values = build.compiler_values + build.version_values
    return Scenario(values, build.undefined | build.absent | absent, build.defined, True)


def oldest_device_scenario(build: HipBuild, absent: frozenset[str] = frozenset()) -> Scenario:
    """nvcc's device pass for the oldest NVIDIA architecture with the oldest toolkit: no HIP
    marker, every version macro 0, ``absent`` the project macros this build never defines."""
    given = {n for n, _ in build.oldest_device}
    return Scenario(
        build.oldest_device, (build.undefined | build.absent | absent) - given, build.defined, False
    )
