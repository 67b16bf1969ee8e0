"""Macros that stand for "nvcc's device pass": ``__CUDA_ARCH__`` and what projects derive from it.

Code such as ``#ifdef TURING_MMA_AVAILABLE`` (where ``common.cuh`` defines that macro only under
``#if __CUDA_ARCH__ >= 750``) is inactive in a host-side parse just like ``#if __CUDA_ARCH__``
itself, and holds the same inline PTX. The front end reads such blocks from the token stream, so
it needs to know which macros are derived. Preprocessor directives are not in the AST; this is a
line scan of directives (comments and continuation lines handled), iterated to a fixpoint.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from hipscan.platforms import Chain, Scenario, hip_build, hip_choice, names_in

BASE = frozenset({"__CUDA_ARCH__", "__CUDA_ARCH_LIST__", "__CUDA_ARCH_FEAT_SM90_ALL"})
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif|define|undef)\b(.*)$")
NAME = re.compile(r"[A-Za-z_]\w*")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


# a type alias on one line (`typedef __hip_bfloat16 __nv_bfloat16;`, `using half_t = __half;`),
# kept with the directives so a HIP-only branch's stand-in types are known too
ALIAS = re.compile(r"^\s*(?:typedef\b[^;{}()]*?\b(\w+)\s*;|using\s+(\w+)\s*=)")


def _directives(text: str) -> list[tuple[str, str]]:
    """(kind, rest) per directive, plus ("alias", name) per one-line type alias."""
    text = COMMENT.sub(" ", text.replace("\\\r\n", " ").replace("\\\n", " "))
    out = []
    for line in text.splitlines():
        m = DIRECTIVE.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
        elif "typedef" in line or "using" in line:
            a = ALIAS.match(line)
            if a:
                out.append(("alias", a.group(1) or a.group(2)))
    return out


_PARSED: dict[tuple[str, float], list[tuple[str, str]]] = {}  # (path, mtime) -> directives


def _read(f: Path, limit: int) -> bytes:
    """A file's first ``limit`` bytes; empty when it cannot be read."""
    try:
        return f.read_bytes()[:limit]
    except OSError:
        return b""


def _file_directives(f: Path, limit: int) -> list[tuple[str, str]]:
    """A file's directives, read once per scan however many project-wide questions ask."""
    try:
        key = (str(f), f.stat().st_mtime)
    except OSError:
        return []
    if key not in _PARSED:
        data = _read(f, limit)
        _PARSED[key] = _directives(data.decode("utf-8", "replace")) if b"#" in data else []
    return _PARSED[key]


def _defined_names(files: list[Path], given: tuple[str, ...], limit: int) -> set[str]:
    """Every name a project file `#define`s or `#undef`s, and those given with -D / -U."""
    defined: set[str] = {g.split("=", 1)[0] for g in given}
    for f in files:
        for kind, rest in _file_directives(f, limit):
            if kind in ("define", "undef"):
                m = NAME.match(rest.strip())
                if m:
                    defined.add(m.group(0))
    return defined


def _definitions(f: Path, limit: int, kinds: tuple[str, ...] = ("define",)):
    """A file's definitions (``kinds``: define, alias) with the #if chains open around each:
    (kind, name, what follows the name, the chains as tuples)."""
    stack: list[list[tuple[str, str]]] = []
    for kind, rest in _file_directives(f, limit):
        if kind in ("if", "ifdef", "ifndef"):
            stack.append([(kind, rest.strip())])
        elif kind in ("elif", "else") and stack:
            stack[-1].append((kind, rest.strip() if kind == "elif" else ""))
        elif kind == "endif" and stack:
            stack.pop()
        elif kind in kinds:
            m = NAME.match(rest.strip())
            if m:
                yield kind, m.group(0), rest.strip()[m.end() :], tuple(tuple(c) for c in stack)


def derived_macros(files: list[Path], limit: int = 2_000_000) -> frozenset[str]:
    """BASE plus every macro a project file defines inside a block conditioned on one of them."""
    parsed = [d for d in (_file_directives(f, limit) for f in files) if d]
    arch = set(BASE)
    while True:
        found: set[str] = set()
        for directives in parsed:
            stack: list[bool] = []  # per open #if chain: does any of its conditions name an arch macro
            for kind, rest in directives:
                names = set(NAME.findall(rest))
                if kind in ("if", "ifdef", "ifndef"):
                    stack.append(bool(names & arch))
                elif kind == "elif" and stack:
                    stack[-1] = stack[-1] or bool(names & arch)
                elif kind == "endif" and stack:
                    stack.pop()
                elif kind == "define" and any(stack):
                    m = NAME.match(rest.strip())
                    if m:
                        found.add(m.group(0))
        if found <= arch:
            return frozenset(arch)
        arch |= found


def cuda_switches(files: list[Path], given: tuple[str, ...] = (), limit: int = 2_000_000) -> tuple[str, ...]:
    """Switch macros the project tests but never defines itself (nor the user with -D): a
    migration scan wants the CUDA code they guard, which is otherwise skipped unseen."""
    switch = hip_build().cuda_switch  # which names are such switches: hipscan/data/platforms.toml
    tested: set[str] = set()
    for f in files:
        for kind, rest in _file_directives(f, limit):
            if kind in ("if", "ifdef", "ifndef", "elif"):
                tested.update(n for n in NAME.findall(rest) if switch.match(n))
    return tuple(sorted(tested - _defined_names(files, given, limit)))


def hip_provided_names(files: list[Path], root: Path | None = None, limit: int = 2_000_000) -> frozenset[str]:
    """Names the project defines itself for its HIP build: macros and type aliases in a branch
    only a HIP build takes (`#ifdef USE_ROCM` ... `#define __shfl_xor_sync(m, v, o, w)
    __shfl_xor(v, o, w)`), in a header named for HIP (vendors/hip.h), or mapping a name onto a
    HIP one. Findings about such a name describe a construct the project has already ported."""
    build = hip_build()
    found: set[str] = set()
    for f in files:
        rel = str(f.relative_to(root)) if root is not None and f.is_relative_to(root) else f.name
        hip_file = bool(build.hip_header.search(rel))
        for kind, name, after, chains in _definitions(f, limit, ("define", "alias")):
            body = after if kind == "define" else ""
            if (
                hip_file
                or build.to_hip.match(body)
                or any(hip_choice(c, build) == (True, False) for c in chains)
            ):
                found.add(name)
    return frozenset(found)


def never_defined(
    files: list[Path],
    scenario_for: Callable[[frozenset[str]], Scenario],
    given: tuple[str, ...] = (),
    limit: int = 2_000_000,
) -> frozenset[str]:
    """Project macros a build never defines: every `#define` of the name sits in a branch that
    build skips (DeepSpeed's `#if __CUDA_ARCH__ >= 530` / `#define PTX_AVAILABLE` for a HIP
    build), iterated so that a macro defined only under such a macro counts too. ``scenario_for``
    gives the build's macro values with the names found so far undefined; names given with -D
    are defined."""
    given_names = {g.split("=", 1)[0].strip() for g in given}
    sites: dict[str, list[tuple[Chain, ...]]] = {}  # name -> per #define, the chains around it
    for f in files:
        for _kind, name, _after, chains in _definitions(f, limit):
            if name not in given_names:
                sites.setdefault(name, []).append(chains)
    absent: frozenset[str] = frozenset()
    while True:
        skips = _skipper(scenario_for(absent))
        found = {
            name
            for name, defs in sites.items()
            if name not in absent and all(any(skips(c) for c in chains) for chains in defs)
        }
        if not found:
            return absent
        absent |= found


# what names the CUDA compiler itself (not an architecture or a version): a macro the project
# defines only under a test of these stands for "compiled by a CUDA compiler"
CUDA_COMPILERS = frozenset({"__CUDACC__", "__NVCC__", "__CUDA__", "_NVHPC_CUDA", "__NVCOMPILER_CUDA__"})


def nvcc_only_sites(
    files: list[Path],
    absent: frozenset[str],
    root: Path | None = None,
    compilers: frozenset[str] = CUDA_COMPILERS,
    limit: int = 2_000_000,
) -> frozenset[tuple[str, str]]:
    """(macro, file defining it) for the macros of ``absent`` (never defined for HIP) that every
    `#define` places under a test of the CUDA compiler (QUDA's `#if defined(__CUDACC__) || ...` /
    `#define QUDA_CUDA_CC`): a test of such a macro selects code for a CUDA compiler, which a HIP
    build silently drops, and the file that defines it is where a port changes it once. Macros
    derived from `__CUDA_ARCH__` or a version are left out: their tests pick an architecture.
    Files are posix paths relative to ``root`` (as facts name them) when it is given."""
    sites: dict[str, list[tuple[Path, tuple[Chain, ...]]]] = {}
    for f in files:
        for _kind, name, _after, chains in _definitions(f, limit):
            if name in absent:
                sites.setdefault(name, []).append((f, chains))
    return frozenset(
        (name, _relative(f, root))
        for name, defs in sites.items()
        if all(
            any(names_in(c) & compilers for c in chains)
            and not any("__CUDA_ARCH__" in names_in(c) for c in chains)
            for _f, chains in defs
        )
        for f, _chains in defs
    )


def nvcc_only(files: list[Path], absent: frozenset[str], limit: int = 2_000_000) -> frozenset[str]:
    """The macro names of ``nvcc_only_sites``."""
    return frozenset(name for name, _f in nvcc_only_sites(files, absent, limit=limit))


def _relative(f: Path, root: Path | None) -> str:
    if root is None:
        return f.as_posix()
    try:
        return f.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return f.resolve().as_posix()


def _skipper(scenario: Scenario) -> Callable[[Chain], bool]:
    """Whether the build skips a chain's last branch, each chain evaluated once."""
    skipped: dict[Chain, bool] = {}

    def skips(chain: Chain) -> bool:
        if chain not in skipped:
            skipped[chain] = scenario.takes(chain) is False
        return skipped[chain]

    return skips


_GUARD_TERM = re.compile(r"^!?\s*defined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|\s+([A-Za-z_]\w*))$")


def _guard_names(kind: str, cond: str) -> tuple[str, ...] | None:
    """The names a whole-file guard requires defined: `#ifdef A`, `#if defined(A) && defined(B)`;
    None for any other condition (a value, a negation, an `||`)."""
    cond = cond.strip()
    if kind == "ifdef":
        m = NAME.fullmatch(cond)
        return (cond,) if m else None
    if kind != "if" or "||" in cond:
        return None
    while cond.startswith("(") and cond.endswith(")"):
        cond = cond[1:-1].strip()
    names: list[str] = []
    for term in cond.split("&&"):
        term = term.strip()
        while term.startswith("(") and term.endswith(")"):
            term = term[1:-1].strip()
        m = _GUARD_TERM.match(term)
        if not m or term.startswith("!"):
            return None
        names.append(m.group(1) or m.group(2))
    return tuple(names)


def _whole_file_guard(data: bytes) -> tuple[str, ...] | None:
    """The outer `#if` of a file all of whose code sits inside it, with no `#else`, as names."""
    if b"#" not in data:
        return None
    text = COMMENT.sub(" ", data.decode("utf-8", "replace").replace("\\\r\n", " ").replace("\\\n", " "))
    depth, guard, closed = 0, None, False
    for line in text.splitlines():
        if not line.strip():
            continue
        m = DIRECTIVE.match(line)
        kind = m.group(1) if m else ""
        if depth == 0:
            if closed or kind not in ("if", "ifdef"):
                return None  # code or a directive outside the guard
            guard = _guard_names(kind, m.group(2))
            if guard is None:
                return None
            depth = 1
            continue
        if kind in ("if", "ifdef", "ifndef"):
            depth += 1
        elif kind in ("elif", "else") and depth == 1:
            return None  # the file has code for the other case too
        elif kind == "endif":
            depth -= 1
            closed = depth == 0
    return guard if closed else None


def whole_file_switches(
    files: list[Path], given: tuple[str, ...] = (), limit: int = 2_000_000
) -> dict[Path, tuple[str, ...]]:
    """Per file whose whole contents sit in `#ifdef FEATURE` (Cholla's `#if defined(PARTICLES) &&
    defined(GRAVITY)` .cu files), the feature switches to define for its parse: such a file is
    only ever compiled with them on, and a migration scan wants its code, which a parse with the
    default build's macros sees as empty. Only names the sources never `#define` nor the user
    gave, and never the toolchain's, platform or HIP-build macros (hipscan/data/platforms.toml)."""
    build = hip_build()
    defined = _defined_names(files, given, limit)
    guards: dict[Path, tuple[str, ...]] = {}
    included: set[str] = set()  # base names the project includes with quotes
    for f in files:
        data = _read(f, limit)
        included.update(Path(m.decode("utf-8", "replace")).name for m in _QUOTED_INCLUDE.findall(data))
        names = _whole_file_guard(data)
        if names and not any(n in defined or not build.feature_switch(n) for n in names):
            guards[f] = names
    # a fragment another file includes (a unity build's init.cu) is read in its includer's parse
    return {f: names for f, names in guards.items() if f.name not in included}


_IDENT = re.compile(rb"[A-Za-z_]\w*")
_DEFINE_LINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
_BYTES_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)


def unused_macros(files: list[Path], limit: int = 2_000_000) -> frozenset[str]:
    """Macros the project #defines but never names anywhere else: a `#define SHFL_SYNC
    __shfl_sync` no code expands (pytorch3d's pulsar/gpu/commands.h) compiles to nothing on any
    platform, so what its body says needs no porting."""
    defines: Counter[bytes] = Counter()
    names: Counter[bytes] = Counter()
    for f in files:
        data = _BYTES_COMMENT.sub(b" ", _read(f, limit))
        defines.update(m.group(1) for m in _DEFINE_LINE.finditer(data))
        names.update(_IDENT.findall(data))
    return frozenset(n.decode("ascii", "replace") for n, k in defines.items() if names[n] <= k)
