"""libclang set-up: argument lists for shim and toolkit modes, the precompiled shim, ctypes helpers.

The libclang wheel has no clang resource directory and would look for one relative to the
current directory, so every parse names ``-resource-dir`` explicitly (our own builtin headers in
shim mode): results do not depend on where hipscan is run from.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import clang.cindex as ci

from hipscan.config import ConfigError, ScanConfig

SHIM_DIR = Path(__file__).resolve().parent / "shim"
KEEP_GOING = 0x200  # CXTranslationUnit_KeepGoing: not exposed as a constant by the bindings
PARSE_INCOMPLETE = 0x04
FOR_SERIALIZATION = 0x10

# Headers most CUDA sources include; precompiled once per scan with the shim so a file's own
# `#include <iostream>` costs nothing (about 280 ms -> 20 ms per file).
PCH_HEADERS = (
    "cstdio",
    "cstdlib",
    "cstring",
    "cstdint",
    "cmath",
    "cassert",
    "cfloat",
    "climits",
    "iostream",
    "vector",
    "string",
    "algorithm",
    "memory",
    "map",
    "set",
    "unordered_map",
    "fstream",
    "sstream",
    "iomanip",
    "functional",
    "numeric",
    "chrono",
    "thread",
    "mutex",
    "atomic",
    "random",
    "array",
    "stdexcept",
    "tuple",
    "limits",
    "cstddef",
    "ctime",
)

_lib = ci.conf.lib
_lib.clang_getCursorBinaryOperatorKind.argtypes = [ci.Cursor]
_lib.clang_getCursorBinaryOperatorKind.restype = ctypes.c_int
_lib.clang_getCursorUnaryOperatorKind.argtypes = [ci.Cursor]
_lib.clang_getCursorUnaryOperatorKind.restype = ctypes.c_int


class _SourceRangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


_lib.clang_getSkippedRanges.argtypes = [ci.TranslationUnit, ci.File]
_lib.clang_getSkippedRanges.restype = ctypes.POINTER(_SourceRangeList)
_lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(_SourceRangeList)]
_lib.clang_getFileLocation.argtypes = [
    ci.SourceLocation,
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_uint),
    ctypes.POINTER(ctypes.c_uint),
    ctypes.POINTER(ctypes.c_uint),
]
_lib.clang_getFileName.argtypes = [ctypes.c_void_p]

BINARY_OPERATORS = {
    3: "*",
    4: "/",
    5: "%",
    6: "+",
    7: "-",
    8: "<<",
    9: ">>",
    11: "<",
    12: ">",
    13: "<=",
    14: ">=",
    15: "==",
    16: "!=",
    17: "&",
    18: "^",
    19: "|",
    20: "&&",
    21: "||",
    22: "=",
    23: "*=",
    24: "/=",
    25: "%=",
    26: "+=",
    27: "-=",
    28: "<<=",
    29: ">>=",
    30: "&=",
    31: "^=",
    32: "|=",
}


# the callee clang gives a `<<<>>>` launch's configuration (which one depends on whether clang
# found a CUDA install), and the comparison operators
CONFIG_FUNCTIONS = frozenset({"__cudaPushCallConfiguration", "cudaConfigureCall"})
COMPARE_OPS = frozenset({"<", ">", "<=", ">=", "==", "!="})
# expressions that pass their operand's value through unchanged: implicit conversions,
# parentheses and casts (what value readers look through)
VALUE_WRAPPERS = frozenset(
    {
        ci.CursorKind.UNEXPOSED_EXPR,
        ci.CursorKind.PAREN_EXPR,
        ci.CursorKind.CSTYLE_CAST_EXPR,
        ci.CursorKind.CXX_STATIC_CAST_EXPR,
        ci.CursorKind.CXX_FUNCTIONAL_CAST_EXPR,
    }
)
FUNCTION_KINDS = frozenset(
    {
        ci.CursorKind.FUNCTION_DECL,
        ci.CursorKind.CXX_METHOD,
        ci.CursorKind.FUNCTION_TEMPLATE,
        ci.CursorKind.CONSTRUCTOR,
        ci.CursorKind.DESTRUCTOR,
        ci.CursorKind.CONVERSION_FUNCTION,
    }
)


_lib.clang_getNumOverloadedDecls.restype = ctypes.c_uint
_lib.clang_getNumOverloadedDecls.argtypes = [ci.Cursor]


def first_overload(ref: ci.Cursor) -> ci.Cursor | None:
    """The first declaration an overloaded reference (a dependent call's callee) names."""
    if not _lib.clang_getNumOverloadedDecls(ref):
        return None
    decl = _lib.clang_getOverloadedDecl(ref, 0)
    if decl is None:
        return None
    decl._tu = ref._tu
    return decl


def same_node(a: ci.Cursor, b: ci.Cursor) -> bool:
    """Cursor identity: `==` (clang_equalCursors) can tell a call's first argument from the
    same node reached by walking children, so the hash and start offset decide as well."""
    return a == b or (a.hash == b.hash and a.extent.start.offset == b.extent.start.offset)


def binary_operator(cursor: ci.Cursor) -> str:
    """The operator of a BINARY_OPERATOR / COMPOUND_ASSIGNMENT_OPERATOR cursor."""
    return BINARY_OPERATORS.get(_lib.clang_getCursorBinaryOperatorKind(cursor), "")


def increments(cursor: ci.Cursor) -> bool:
    """A UNARY_OPERATOR that is `++` or `--` (pre or post: CXUnaryOperator 1-4)."""
    return 1 <= _lib.clang_getCursorUnaryOperatorKind(cursor) <= 4


def file_name(file_ptr: int) -> str:
    """The name of a CXFile given as a pointer value."""
    return _lib.clang_getFileName(ctypes.c_void_p(file_ptr))


def file_location_ptr(location: ci.SourceLocation) -> tuple[int, int, int, int]:
    """Like :func:`file_location`, with the file as a pointer value (0 for none): callers that
    place many locations map pointers to names once instead of converting a string each time."""
    f = ctypes.c_void_p()
    line, col, off = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    _lib.clang_getFileLocation(
        location, ctypes.byref(f), ctypes.byref(line), ctypes.byref(col), ctypes.byref(off)
    )
    return f.value or 0, line.value, col.value, off.value


def expansion_offset(location: ci.SourceLocation) -> tuple[int, int]:
    """(file pointer value, byte offset) of a location's expansion point, in one call."""
    f = ci.c_object_p()
    off = ctypes.c_uint()
    _lib.clang_getInstantiationLocation(location, ctypes.byref(f), None, None, ctypes.byref(off))
    return (ctypes.cast(f, ctypes.c_void_p).value or 0), off.value


def file_location(location: ci.SourceLocation) -> tuple[str, int, int, int]:
    """(file, line, column, offset) where the text was written: inside a macro argument, the
    argument's own position; inside a macro body, the expansion point."""
    f = ctypes.c_void_p()
    line, col, off = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    _lib.clang_getFileLocation(
        location, ctypes.byref(f), ctypes.byref(line), ctypes.byref(col), ctypes.byref(off)
    )
    if not f.value:
        return "", 0, 0, 0
    name = _lib.clang_getFileName(f)
    return name, line.value, col.value, off.value


def skipped_ranges(tu: ci.TranslationUnit, file: ci.File) -> list[tuple[int, int]]:
    """Byte ranges the preprocessor skipped (inactive #if branches) in one file."""
    ranges = _lib.clang_getSkippedRanges(tu, file)
    if not ranges:
        return []
    try:
        out = []
        for i in range(ranges.contents.count):
            r = ranges.contents.ranges[i]
            out.append((r.start.offset, r.end.offset))
        return out
    finally:
        _lib.clang_disposeSourceRangeList(ranges)


def find_cuda_path(config: ScanConfig) -> Path | None:
    """--cuda-path, else CUDA_HOME / CUDA_PATH, else the standard places, else nvcc on PATH."""
    candidates = [
        config.cuda_path,
        os.environ.get("CUDA_HOME", ""),
        os.environ.get("CUDA_PATH", ""),
    ]
    candidates += ["/usr/local/cuda", "/opt/cuda", "/usr/lib/cuda"]
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(str(Path(nvcc).resolve().parent.parent))
    for c in candidates:
        if c and (Path(c) / "include" / "cuda_runtime.h").is_file():
            return Path(c)
    return None


@dataclass(frozen=True)
class ParseSetup:
    """Everything a worker needs to parse a file the same way as every other worker."""

    mode: str  # shim | toolkit (auto is resolved before parsing)
    args: tuple[str, ...]  # flags common to every file (defines, std, mode flags)
    prefix: tuple[str, ...]  # the -include / -include-pch part
    include_dirs: tuple[str, ...]
    fallback: tuple[str, ...] = ()  # the -include part to use when the PCH cannot be loaded
    trusted_dirs: tuple[str, ...] = ()  # beside the tree: files whose text a report may quote


def base_args(config: ScanConfig, mode: str, cuda_path: Path | None) -> list[str]:
    args = ["-x", "cuda", "--cuda-host-only", "-nocudalib", "-ferror-limit=0", f"-std={config.std}"]
    args += ["-Wno-unknown-cuda-version", "-Wno-everything", "-fsyntax-only"]
    if mode == "toolkit" and cuda_path is not None:
        # Real headers; clang's CUDA wrapper is not in the wheel, so include the runtime directly.
        args += [f"--cuda-path={cuda_path}", "-nocudainc", "-resource-dir", str(SHIM_DIR)]
        args += [
            "-D__CUDACC__",
            "-D__NVCC__",
            "-D__CUDACC_RDC__",
            "-isystem",
            str(cuda_path / "include"),
        ]
    else:
        args += ["-nocudainc", "-resource-dir", str(SHIM_DIR), "-isystem", str(SHIM_DIR / "cuda")]
    # PyTorch's headers for a CUDA extension, when the real ones are on no include path: searched
    # last, so an installed torch (-I from compile_commands.json or the user) wins
    args += ["-idirafter", str(SHIM_DIR / "torch")]
    args += [f"-D{d}" for d in config.defines]
    args += [f"-U{u}" for u in config.undefines]
    return args


def clang_args(config: ScanConfig | None = None) -> list[str]:
    """The shim-mode argument list, for callers that only need tokens of a file."""
    config = config or ScanConfig()
    return base_args(config, "shim", None) + ["-include", str(SHIM_DIR / "hipscan_cuda.h")]


@cache
def _shim_files_hash() -> hashlib._Hash:
    """libclang's module path and the shim headers, hashed once per process (read per call
    before: three times in a one-file translation)."""
    h = hashlib.sha256()
    h.update(ci.__file__.encode())
    for path in sorted(SHIM_DIR.rglob("*.h")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h


def _shim_digest(args: list[str]) -> str:
    h = _shim_files_hash().copy()
    h.update("\0".join(args).encode())
    h.update("\0".join(PCH_HEADERS).encode())
    return h.hexdigest()[:20]


def _pch_usable(pch: Path, args: list[str]) -> bool:
    """clang refuses a PCH whose inputs changed on disk since it was built (a diagnostic, then a
    parse without it); try it once on a probe that needs what it holds."""
    try:
        tu = ci.Index.create().parse(
            "/__hipscan__/probe.cu",
            args=args + ["-include-pch", str(pch)],
            unsaved_files=[("/__hipscan__/probe.cu", PCH_PROBE)],
            options=KEEP_GOING,
        )
    except ci.TranslationUnitLoadError:
        return False
    return not any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics)


# what a loaded PCH declares: the shim's CUDA surface and the standard headers
PCH_PROBE = "uint8_t __hipscan_a; std::vector<int> __hipscan_b; dim3 __hipscan_c;\n"


def pch_failed(tu: ci.TranslationUnit, pch: str) -> bool:
    """Whether a parse could not load the precompiled header (then it saw none of the shim or
    the standard headers, and its facts would be wrong)."""
    for d in tu.diagnostics:
        if d.severity >= ci.Diagnostic.Error and (pch in d.spelling or "precompiled header" in d.spelling):
            return True
    return False


PCH_KEEP = 4  # precompiled headers kept per machine: other modes/flags each have their own


def _lock(path: Path, exclusive: bool, wait: bool = True):
    """An open file holding a flock on ``path`` (None when ``wait`` is false and it is taken,
    or when the folder cannot hold locks)."""
    try:
        fh = open(path, "a+b")  # noqa: SIM115 - held for the scan's lifetime
    except OSError:
        return None
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        fcntl.flock(fh, mode | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        fh.close()
        return None
    return fh


# Shared locks on the PCHs this process uses, held until it exits: a PCH is read by every parse,
# so no other process may delete it while this one runs (see _prune_pchs).
_IN_USE: dict[str, object] = {}


def _prune_pchs(cache: Path, keep: Path) -> None:
    """Delete all but the most recently used PCHs (each is ~12 MB; every shim or flag change
    makes a new one), never one another process holds (its ``.use`` lock)."""
    pchs = sorted(cache.glob("shim-*.pch"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in [p for p in pchs if p != keep][PCH_KEEP - 1 :]:
        held = _lock(old.with_suffix(".use"), exclusive=True, wait=False)
        if held is None:
            continue  # in use by a running scan
        try:
            for f in (old, old.with_suffix(".h")):
                f.unlink(missing_ok=True)
        finally:
            held.close()
    for header in cache.glob("shim-*.h"):  # inputs of builds that failed or were pruned
        if header.with_suffix(".pch").exists() or header == keep.with_suffix(".h"):
            continue
        building = _lock(header.with_suffix(".lock"), exclusive=True, wait=False)
        if building is not None:  # not being built right now
            header.unlink(missing_ok=True)
            building.close()


def _write_once(path: Path, text: str) -> None:
    """Create ``path`` with ``text`` unless it already holds exactly that: a PCH records its
    input's size and time, so an input rewritten under a running scan would invalidate it."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def build_pch(config: ScanConfig, args: list[str], prefix_include: str) -> Path | None:
    """Precompile the shim plus common system headers; reuse it across scans (content hash).

    Any number of processes may share the cache folder: one builds under an exclusive lock (the
    others wait, then use its result), the PCH and its input header are written to unique
    temporary names and renamed into place, a PCH is checked loadable before use, and a shared
    lock held for the whole scan keeps other processes from pruning it."""
    cache = config.cache_path() / "pch"
    target = cache / f"shim-{_shim_digest(args + [prefix_include])}.pch"
    if str(target) in _IN_USE and target.is_file():
        return target
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    builder = _lock(target.with_suffix(".lock"), exclusive=True)
    try:
        in_use = _lock(target.with_suffix(".use"), exclusive=False)
        if target.is_file() and _pch_usable(target, args):
            os.utime(target)  # most recently used: kept when older ones are pruned
        elif not _build(target, args, prefix_include):
            if in_use is not None:
                in_use.close()
            return None
        if in_use is not None:
            _IN_USE[str(target)] = in_use
        _prune_pchs(cache, keep=target)
        return target
    finally:
        if builder is not None:
            builder.close()


def _build(target: Path, args: list[str], prefix_include: str) -> bool:
    """Build ``target`` (a stale one, e.g. after a system header changed, is replaced by an
    atomic rename: a process still reading the old file keeps its open copy)."""
    header = target.with_suffix(".h")  # the PCH records its input: keep it, unchanged
    lines = [f'#include "{prefix_include}"'] + [f"#include <{h}>" for h in PCH_HEADERS]
    tmp = target.with_name(f"{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        _write_once(header, "\n".join(lines) + "\n")
        tu = ci.Index.create().parse(
            str(header), args=args, options=KEEP_GOING | PARSE_INCOMPLETE | FOR_SERIALIZATION
        )
        if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
            return False
        tu.save(str(tmp))
        if not _pch_usable(tmp, args):
            return False
        os.replace(tmp, target)
        return True
    except (OSError, ci.TranslationUnitLoadError, ci.TranslationUnitSaveError):
        return False
    finally:
        tmp.unlink(missing_ok=True)


def make_setup(config: ScanConfig, precompile: bool = True) -> ParseSetup:
    """The flags every parse shares; ``precompile=False`` leaves the precompiled shim out (it is
    built or checked with a trial parse: not worth it when every file is a cache hit)."""
    mode = config.mode
    cuda_path = find_cuda_path(config) if mode in ("toolkit", "auto") else None
    if mode == "auto":
        mode = "toolkit" if cuda_path else "shim"
    if mode == "toolkit" and cuda_path is None:
        raise ConfigError("--mode toolkit: no CUDA toolkit found (give --cuda-path or set CUDA_HOME)")
    args = base_args(config, mode, cuda_path)
    include = str(SHIM_DIR / ("hipscan_toolkit.h" if mode == "toolkit" else "hipscan_cuda.h"))
    prefix: tuple[str, ...] = ("-include", include)
    fallback = prefix
    if config.use_pch and precompile:
        pch = build_pch(config, args, include)
        if pch is not None:
            prefix = ("-include-pch", str(pch))
    trusted = [str(SHIM_DIR)] + ([str(cuda_path)] if cuda_path is not None else [])
    trusted += [d for d in config.include_dirs if d not in config.repo_include_dirs]
    return ParseSetup(
        mode=mode,
        args=tuple(args),
        prefix=prefix,
        include_dirs=tuple(config.include_dirs),
        fallback=fallback,
        trusted_dirs=tuple(os.path.normpath(d) for d in trusted),
    )


def setup_digest(
    setup: ParseSetup, watched: frozenset[str], device_macros: frozenset[str] = frozenset()
) -> str:
    """Identifies everything besides the file itself that decides a parse's facts."""
    h = hashlib.sha256()
    h.update(_shim_digest(list(setup.args)).encode())
    h.update("\0".join((setup.mode, *setup.include_dirs)).encode())
    h.update("\0".join(sorted(watched)).encode())
    h.update("\0".join(sorted(device_macros)).encode())
    return h.hexdigest()[:24]
