"""Lines a HIP build for AMD GPUs never compiles, or that a project wrote for AMD already.

Findings in the CUDA arm of a HIP test (`#ifdef USE_ROCM ... #else <CUDA code> #endif`), in its
HIP arm (the project's own HIP code), or in a chain that picks between AMD architectures
(`#ifdef __GFX9__`) describe code that is not part of the port (see hipscan.platforms for how
branches are decided).

So do findings in the branches a HIP build skips of a chain whose later branch it compiles as
the working generic path: `#if __CUDA_ARCH__ >= 800` / `#else <generic code>`, `#ifdef
PTX_AVAILABLE` (a macro defined only under `__CUDA_ARCH__`) / `#else <portable C++>`. The
branch counts as generic when nvcc's device pass for the oldest NVIDIA GPU takes it too and it
holds a statement; host code in the `#else` of `#ifdef __CUDA_ARCH__` is not generic, nor an
empty stub kernel (`#else __global__ void k(float *out) {}`), and a branch HIP skips without any
branch to take keeps its findings (the code is then missing on AMD). A toolkit or library version
test (`#if CUDA_VERSION >= 12000` / `#else`) is no such choice: its older path is what a port
most often rewrites or drops (legacy cuSPARSE and cuSOLVER calls, removed pointer-attribute
fields), so its branches keep their findings, unless the skipped code is the taken code again
(`#if CUDA_VERSION >= 9000` / `__shfl_xor_sync(mask, v, 16)` / `#else` / `__shfl_xor(v, 16)`) or
only a hint; then the test itself is quiet as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from hipscan.facts import BranchFact
from hipscan.platforms import (
    Chain,
    HipBuild,
    Scenario,
    hip_build,
    hip_choice,
    hip_scenario,
    names_in,
    oldest_device_scenario,
    tests_amd_arch,
)


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

    def __init__(
        self,
        branches: list[BranchFact],
        hip_absent: frozenset[str] = frozenset(),
        oldest_absent: frozenset[str] = frozenset(),
        read_line: Callable[[str, int], str] | None = None,
        rocm_version: tuple[int, ...] | None = None,
        torch_extension: bool = False,
    ) -> None:
        # HIP_VERSION tests decided for the target; `__CUDACC__` as torch's hipify leaves it
        build = hip_build().for_target(rocm_version).for_torch_extension(torch_extension)
        self.spans: dict[str, list[tuple[int, int]]] = {}
        chains: dict[tuple[str, int], list[BranchFact]] = {}
        for b in branches:
            if outside_hip_build(b, build):
                self.spans.setdefault(b.loc.path, []).append((b.loc.line, b.end_line))
            else:
                chains.setdefault((b.loc.path, b.chain_line), []).append(b)
        hip, oldest = hip_scenario(build, hip_absent), oldest_device_scenario(build, oldest_absent)
        # every branch the HIP build skips, whether or not another branch takes over
        self.skipped: dict[str, list[tuple[int, int]]] = {}
        for (path, _line), chain in chains.items():
            for b in chain:
                if hip.takes(b.chain) is False:
                    self.skipped.setdefault(path, []).append((b.loc.line, b.end_line))
        for (path, _line), chain in chains.items():
            if read_line is None:
                continue

            def holds_code(b: BranchFact, path: str = path) -> bool:
                return _holds_statement(path, b.loc.line + 1, b.end_line, read_line)

            def body(b: BranchFact, path: str = path) -> str:
                return _body(path, b.loc.line + 1, b.end_line, read_line)

            quiet = skipped_with_fallback(chain, hip, oldest, holds_code)
            harmless = harmless_when_skipped(chain, hip, oldest, body)
            for b in quiet + harmless:
                self.spans.setdefault(path, []).append((b.loc.line, b.end_line))
            skipped = [b for b in chain if _takes(hip, b.chain) is False]
            if skipped and all(b in harmless for b in skipped):
                # nothing the HIP build runs depends on the test (zfp's `#if CUDART_VERSION <
                # 8000` / `#pragma unroll` / `#else` / `#pragma unroll N`): not its finding either
                for b in chain:
                    self.spans.setdefault(path, []).append((b.loc.line, b.loc.line + 1))
            lone = lone_branch_as_oldest(chain, hip, oldest, holds_code)
            if lone is not None:  # only the test itself: the body is what HIP compiles
                self.spans.setdefault(path, []).append((lone.loc.line, lone.loc.line + 1))

    def __contains__(self, where: tuple[str, int]) -> bool:
        path, line = where
        return any(start <= line < end for start, end in self.spans.get(path, ()))

    def hip_skips(self, where: tuple[str, int]) -> bool:
        """Whether the line lies in a branch a HIP build does not compile (decided above, or one
        it skips with nothing to take instead)."""
        path, line = where
        return where in self or any(start <= line < end for start, end in self.skipped.get(path, ()))


def skipped_with_fallback(
    chain: list[BranchFact], hip: Scenario, oldest: Scenario, holds_code: Callable[[BranchFact], bool]
) -> list[BranchFact]:
    """The branches of one #if chain a HIP build skips, when it compiles a later branch that
    holds code and that the oldest NVIDIA device pass compiles too (see module doc)."""
    chain = sorted(chain, key=lambda b: b.loc.line)
    on_hip = [_takes(hip, b.chain) for b in chain]
    if True not in on_hip:
        return []
    j = on_hip.index(True)
    fallback = chain[j]
    if _version_test(chain[:j]):
        return []  # a toolkit or library version test: the older path may use what HIP lacks
    if j == 0 or _takes(oldest, fallback.chain) is not True or not holds_code(fallback):
        return []
    return [b for b, v in zip(chain, on_hip, strict=True) if v is False]


def harmless_when_skipped(
    chain: list[BranchFact], hip: Scenario, oldest: Scenario, body: Callable[[BranchFact], str]
) -> list[BranchFact]:
    """Branches a HIP build skips whose loss changes nothing it runs: one that holds only
    compile-time checks and tuning hints (`__launch_bounds__(128, 16)` chosen by
    `__CUDA_ARCH__ == 800`, a `static_assert` working around one nvcc release, an assumption
    macro over `__builtin_assume` whose other branch leaves it empty), or one whose
    code is the same as that of the branch the HIP build takes (AMReX's `#if __CUDA_ARCH__ ...
    #define AMREX_ASSUME(X) __builtin_assume(X)` / `#elif defined(__clang__)` with the same
    definition), or one holding only a specialisation of a class template, whose primary template
    serves the builds that skip it, when nvcc's oldest device pass skips it too (mamba's `#if
    __CUDA_ARCH__ >= 800` / `template<int N> struct Converter<at::BFloat16, N>`; not AMReX's
    `#if defined(__NVCC__)` traits for extended lambdas, which every NVIDIA build has)."""
    chain = sorted(chain, key=lambda b: b.loc.line)
    on_hip = [_takes(hip, b.chain) for b in chain]
    taken = next((b for b, v in zip(chain, on_hip, strict=True) if v is True), None)
    # a toolkit version test choosing a shuffle's `_sync` form: the mask-less form is HIP's own
    versioned = _version_test(chain)
    taken_body = _same_code(body(taken), versioned) if taken is not None else None
    out = []
    for b, v in zip(chain, on_hip, strict=True):
        if v is not False:
            continue
        text = body(b)
        if not text:
            continue
        if _HINTS_ONLY.fullmatch(text) or _same_code(text, versioned) == taken_body:
            out.append(b)
        elif _SPECIALISATION.match(text) and _takes(oldest, b.chain) is False:
            out.append(b)  # the oldest NVIDIA GPU runs the primary template too
    return out


def lone_branch_as_oldest(
    chain: list[BranchFact], hip: Scenario, oldest: Scenario, holds_code: Callable[[BranchFact], bool]
) -> BranchFact | None:
    """A chain of one `#if` without `#else` that a HIP build compiles as nvcc's device pass for
    the oldest NVIDIA GPU does (`#if !defined(__STOCHASTIC_MODE__) || __CUDA_ARCH__ < 700`
    around a `b.sync()`): AMD runs the code every supported NVIDIA GPU could, nothing is left
    out, so the test is no finding. A chain with an `#else` is not: there the HIP build picks the
    older path over a newer one (SUNDIALS' CAS-loop `atomicAdd(double*)` under `__CUDA_ARCH__ <
    600`, replaced by its port), nor a toolkit or library version test (AMReX's `#if
    __CUDACC_VER_MAJOR__ < 12 ...` around `cudaDeviceSetSharedMemConfig`, dropped by its port)."""
    if len(chain) != 1:
        return None
    b = chain[0]
    if _version_test([b]):
        return None  # old toolkits' code may use APIs HIP lacks (cudaDeviceSetSharedMemConfig)
    if _takes(hip, b.chain) is True and _takes(oldest, b.chain) is True and holds_code(b):
        return b
    return None


_VERSION_NAME = re.compile(r"_VER_|VERSION")


def _version_test(branches: list[BranchFact]) -> bool:
    """Whether the conditions selecting these branches test a toolkit or library version."""
    return any(_VERSION_NAME.search(n) for b in branches for n in names_in(b.chain))


# an alignment attribute: branches that differ only by one define the same thing on HIP, whose
# headers define `__align__` (CuPy's `struct __align__(sizeof(T)*2) complex` / `struct complex`)
_ALIGN = re.compile(r"\b(?:__align__|alignas)\s*\((?:[^()]|\([^()]*\))*\)\s*")
# a shuffle's `_sync` form with its mask: the same operation as the mask-less form HIP declares
# (`__shfl_xor_sync(mask, v, 16)` / `__shfl_xor(v, 16)`, apex's CUDA_VERSION >= 9000 arms; not a
# ballot, whose result is as wide as the wavefront either way)
_SYNC_MASK = re.compile(r"\b(__shfl(?:_up|_down|_xor)?)_sync\s*\(\s*(?:[^(),]|\([^()]*\))+,\s*")


def _same_code(text: str, versioned: bool = False) -> str:
    """An arm's code with what HIP treats alike removed: alignment attributes, and in a toolkit
    version test the shuffles' `_sync` masks."""
    text = _ALIGN.sub("", text)
    return _SYNC_MASK.sub(r"\1(", text) if versioned else text


# an arm that is one class template specialisation: `template<int N> struct Converter<bf16, N> {`
_SPECIALISATION = re.compile(
    r"template\s*<[^{};]*>\s*(?:struct|class)\s+\w+\s*<[^{};]*>\s*(?::[^{};]*)?\{.*\}\s*;\s*\Z", re.S
)

# what an arm may hold and still change no code a HIP build runs (after _body's joining): tuning
# hints, compile-time checks, and an optimiser assumption macro (ggml's `#if CUDART_VERSION >=
# 11010` / `#define GGML_CUDA_ASSUME(x) __builtin_assume(x)` / `#else` an empty one)
_HINTS_ONLY = re.compile(
    r"(?:\s*(?:__launch_bounds__\s*\([^()]*(?:\([^()]*\)[^()]*)*\)"
    r"|static_assert\s*\((?:[^()]|\([^()]*\))*\)\s*;"
    r"|#\s*define\s+\w+\s*\(\s*\w+\s*\)\s*(?:__builtin_assume|__assume)\s*\(\s*\(?\s*\w+\s*\)?\s*\)"
    r"|#\s*pragma\b[^\n]*))+\s*",
    re.S,
)


_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def _body(path: str, first: int, end: int, read_line: Callable[[str, int], str]) -> str:
    """Lines first..end-1 without comments, joined; '' when unreadable or a directive other than
    #pragma / #define sits there (a nested chain is judged by its own branches)."""
    out = []
    in_comment = False
    for line in range(first, end):
        try:
            code = read_line(path, line)
        except (OSError, IndexError, UnicodeDecodeError):
            return ""
        # a "//" inside a string starts no comment; the string itself stays: arms that differ only
        # in a literal (libCEED's NVRTC option "-arch=sm_" / "-arch=compute_") are not the same code
        code = _STRING.sub(lambda m: m.group(0).replace("/", "\0"), code)
        code = re.sub(r"/\*.*?\*/", " ", code)
        if in_comment:
            if "*/" not in code:
                continue
            code, in_comment = code.split("*/", 1)[1], False
        if "/*" in code:
            code, in_comment = code.split("/*", 1)[0], True
        code = code.split("//", 1)[0].strip()
        if not code:
            continue
        if code.startswith("#") and not re.match(r"#\s*(pragma|define)\b", code):
            return ""
        out.append(code)
    return "\n".join(out)


@lru_cache(maxsize=8192)
def _takes(scenario: Scenario, chain: Chain) -> bool | None:
    return scenario.takes(chain)


# a statement that only gives up: what an `#else` for a too-old toolkit often holds (cuda-samples:
# `print_NVCC_min_spec(...); exit(EXIT_SUCCESS);`, `return CUBLAS_STATUS_SUCCESS;`), also through
# a project's error macro (OCCA: `OCCA_FORCE_ERROR("... does not support Peer-to-Peer")`, or its
# check macro asserting `false`), not its wrapper that checks a call's status
_BAIL_OUT = re.compile(
    r"^(return\s*(\d[\w.]*|[A-Z_][A-Z0-9_]*|true|false|nullptr|[A-Za-z_][\w:]*(<[^<>]*>)?\s*\(\s*\)|\{\s*\})?$"
    r"|(std::)?(exit|_exit|abort|quick_exit|__trap|__builtin_trap|assert|printf|fprintf|puts"
    r"|perror|print_\w+)\s*\(|throw\b"
    r"|([A-Z][A-Z0-9]*_)*(FORCE_ERROR|FAIL|FATAL|ABORT|PANIC|THROW)[A-Z0-9_]*\s*\("
    r"|([A-Z][A-Z0-9]*_)*(ERROR|ASSERT|CHECK)\s*\(.*,\s*false\s*\)$"
    # an unused parameter silenced before the bail-out (CTranslate2: `(void)size; throw ...`)
    r"|\(void\)\s*[\w.]+$|static_cast<void>\s*\(\s*[\w.]+\s*\)$)"
)


def _holds_statement(path: str, first: int, end: int, read_line: Callable[[str, int], str]) -> bool:
    """Whether lines first..end-1 hold a statement that does work, outside directives and
    comments: a generic path rather than an empty stub, an `#error`, a message and exit, or
    dummy definitions returning a default value (mixbench's `#else` half2 `mad` returning
    `half2()`, which its port replaced by the real `__hfma2` path)."""
    text = []
    for line in range(first, end):
        try:
            code = read_line(path, line).split("//", 1)[0].strip()
        except (OSError, IndexError, UnicodeDecodeError):
            return False
        if code and not code.startswith(("#", "/*", "* ", "*/")):
            text.append(code)
    statements = " ".join(text).split(";")[:-1]  # what follows the last `;` ends no statement
    # a statement's text after its last `{` (a stub's body: `half2 mad(...) { return half2()`)
    return any(not _BAIL_OUT.match(st.rsplit("{", 1)[-1].strip(" {}")) for st in statements)
