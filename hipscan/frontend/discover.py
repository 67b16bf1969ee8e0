"""Which files a scan looks at: CUDA sources, the headers and C++ files that are CUDA, build files."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from hipscan.frontend.confighdr import MAX_TEMPLATES, generated_path

ALWAYS = frozenset({".cu", ".cuh"})
MAYBE = frozenset({".h", ".hpp", ".hh", ".hxx", ".inl", ".cpp", ".cc", ".cxx", ".c++", ".c"})
HEADERS = frozenset({".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl"})
BUILD_NAMES = ("CMakeLists.txt", "setup.py", "compile_commands.json")
BUILD_SUFFIXES = (".cmake", ".mk")
MAKE_NAMES = ("Makefile", "makefile", "GNUmakefile")
# Content test for files whose suffix does not say CUDA: a byte search, used only to choose files.
CUDA_MARKERS = re.compile(
    rb"__global__|__device__|__shared__|<<<|\bcuda[A-Z]\w*\s*\(|\bcu[A-Z][a-z]\w*\s*\(|\bcudaDeviceProp\b|"
    rb"#\s*include\s*[<\"](?:cuda|cublas|cufft|curand|cusparse|cusolver|cudnn|nccl|nvrtc|nvToolsExt|"
    rb"cooperative_groups|mma\.h|thrust/|cub/|cutlass/|cute/|NvInfer|optix|nvml|cufile|nvjpeg|npp)|"
    # code that differs under nvcc: a test of its or the toolkit's macros (MFEM's kernel headers,
    # written with the project's own MFEM_HOST_DEVICE-style macros, carry nothing else), or one
    # that hides them from the headers it includes (`#pragma push_macro("__CUDA_ARCH__")` /
    # `#undef __CUDA_ARCH__` around Eigen: Grid, TAMM)
    rb"#[ \t]*(?:if|ifdef|ifndef|elif|undef|pragma[ \t]+push_macro)\b[^\n]*"
    rb"\b(?:__CUDA_ARCH__|__CUDACC__|__NVCC__|CUDA_VERSION|CUDART_VERSION)\b|"
    # ... or an include of a header named for CUDA (the project's `general/cuda.hpp`, SUNDIALS'
    # `nvector/nvector_cuda.h`): host code of the CUDA back end
    rb"#[ \t]*include[ \t]*[<\"](?:[^>\"\n]*/)?[^>\"\n/]*(?i:cuda)[^>\"\n/]*[>\"]|"
    # ... or the driver's or NVRTC's result types: a header that declares the API for a loader
    # that opens libcuda/libnvrtc at run time (hashcat's ext_cuda.h), calling nothing itself
    rb"\b(?:CUresult|CUdevice_attribute|nvrtcResult)\b|"
    # ... or inline PTX, whose functions a project macro marks as device code (libcu++'s
    # `_LIBCUDACXX_DEVICE void __cuda_membar_block() { asm volatile("membar.cta;" ...); }`)
    rb"\b(?:asm|__asm__)(?:[ \t]+(?:volatile|__volatile__))?[ \t]*\([ \t]*\"[ \t]*"
    rb"(?:membar|fence|atom|red|shfl|vote|bar|mma|ldmatrix|mbarrier|prmt|activemask|ld|st|mov|cvta)"
    rb"\.[a-z0-9_.]+"
)


@dataclass
class SourceSet:
    root: Path
    sources: list[Path] = field(default_factory=list)  # parsed as translation units, in order
    headers: list[Path] = field(default_factory=list)  # CUDA headers (parsed alone if no TU includes them)
    project_files: set[Path] = field(default_factory=set)  # every C/C++/CUDA file under the root
    build_files: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    # config headers the build writes from a template (`config.h` from `config.h.in`) and the
    # tree does not hold: generated path -> template
    config_templates: dict[Path, Path] = field(default_factory=dict)


def _excluded(rel: str, name: str, patterns: tuple[str, ...]) -> bool:
    for p in patterns:
        if fnmatch.fnmatch(name, p) or fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel, p.rstrip("/") + "/*"):
            return True
    return False


def scan_root(paths: list[Path]) -> Path:
    resolved = [p.resolve() for p in paths]
    if len(resolved) == 1:
        return resolved[0] if resolved[0].is_dir() else resolved[0].parent
    return Path(os.path.commonpath([str(p if p.is_dir() else p.parent) for p in resolved]))


def is_cuda(path: Path, limit: int = 2_000_000) -> bool:
    return bool(CUDA_MARKERS.search(_read(path, limit)))


def _read(path: Path, limit: int = 2_000_000) -> bytes:
    """A file's first bytes, b"" when it cannot be read (discovery only chooses files)."""
    try:
        with path.open("rb") as f:
            return f.read(limit)
    except OSError:
        return b""


def discover(paths: list[Path], excludes: tuple[str, ...]) -> SourceSet:
    root = scan_root(paths)
    result = SourceSet(root=root)
    candidates: list[Path] = []

    def unreadable(err: OSError) -> None:  # reported like an unreadable file, not skipped silently
        where = Path(err.filename) if err.filename else root
        why = "permission denied" if isinstance(err, PermissionError) else (err.strerror or str(err))
        result.skipped.append((where, f"skipped: cannot read folder ({why})"))

    for p in paths:
        p = Path(os.path.abspath(p))
        if p.is_dir():
            for dirpath, dirnames, filenames in os.walk(p, onerror=unreadable):
                rel_dir = os.path.relpath(dirpath, root)
                dirnames[:] = sorted(
                    d
                    for d in dirnames
                    if not _excluded(os.path.normpath(os.path.join(rel_dir, d)), d, excludes)
                )
                for name in sorted(filenames):
                    full = Path(dirpath) / name
                    rel = os.path.normpath(os.path.join(rel_dir, name))
                    if _excluded(rel, name, excludes):
                        continue
                    candidates.append(full)
        elif p.exists() or p.is_symlink():
            candidates.append(p)
        else:
            result.skipped.append((p, "skipped: no such file"))
    files = [Path(os.path.abspath(p)) for p in paths if not Path(p).is_dir()]
    # a file scanned on its own still reports what its project headers hold; files from unrelated
    # trees (whose only common folder is the filesystem's root) each bring their own folder
    walked = [root] if files and root != Path(root.anchor) else sorted({f.parent for f in files})
    for top in walked:
        for dirpath, dirnames, filenames in os.walk(top):
            rel_dir = os.path.relpath(dirpath, root)
            dirnames[:] = [
                d for d in dirnames if not _excluded(os.path.normpath(os.path.join(rel_dir, d)), d, excludes)
            ]
            result.project_files.update(
                Path(dirpath) / n for n in filenames if Path(n).suffix.lower() in HEADERS
            )
            for n in filenames:
                _config_template(result, Path(dirpath) / n)
    plain: list[Path] = []  # C/C++ files with no CUDA marker of their own
    bare: list[Path] = []  # names without a suffix that read as C++ (`<cuda/std/atomic>`)
    for full in candidates:
        name = full.name
        suffix = full.suffix.lower()
        if _config_template(result, full):
            continue
        # GNU make reads GNUmakefile, makefile and Makefile (PETSc's per-folder `makefile`s)
        if name in BUILD_NAMES or name.startswith(MAKE_NAMES) or name.endswith(BUILD_SUFFIXES):
            result.build_files.append(full)
            continue
        if "." not in name and _reads_as_header(full):
            bare.append(full)
            continue
        if suffix not in ALWAYS and suffix not in MAYBE:
            continue
        result.project_files.add(full)
        if full.is_symlink() and not full.exists():
            result.skipped.append((full, "skipped: broken symbolic link"))
            continue
        if suffix in HEADERS:
            if suffix == ".cuh" or is_cuda(full):
                result.headers.append(full)
            else:
                plain.append(full)
        elif suffix in ALWAYS or is_cuda(full):
            result.sources.append(full)
        else:
            plain.append(full)
    for full in _included_bare(root, [*result.sources, *result.headers, *plain], bare):
        result.project_files.add(full)
        (result.headers if is_cuda(full) else plain).append(full)
    _through_includes(result, plain)
    return result


# the start of a C or C++ header: comments, then a preprocessor line or a C++ declaration
_HEADER_START = re.compile(
    rb"\A(?:\s|//[^\n]*\n|/\*.*?\*/)*(?:#[ \t]*(?:ifndef|if|pragma|include|define)\b|"
    rb"(?:namespace|template|extern|class|struct)\b)",
    re.S,
)
# an #include of either form, the name it spells (also read by hipscan.vendored)
INCLUDE_DIRECTIVE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.M)


def _reads_as_header(path: Path) -> bool:
    """A file without a suffix that starts as C++ does (libcu++'s `cuda/std/atomic`, Eigen's
    `Eigen/Core`); scripts, licences and READMEs do not."""
    head = _read(path, 4096)
    return b"\0" not in head and bool(_HEADER_START.match(head))


def _included_bare(root: Path, files: list[Path], bare: list[Path], rounds: int = 6) -> list[Path]:
    """The suffix-less headers some scanned file includes, in the order met: an include names one
    by its path from the tree (or its tail, when that is unique and has a folder) or, quoted, by
    its name beside the includer. A suffix-less file nothing includes is left out."""
    if not bare:
        return []
    by_rel = {str(p.relative_to(root)).replace(os.sep, "/"): p for p in bare if p.is_relative_to(root)}
    known = set(by_rel.values())
    chosen: list[Path] = []
    todo = files
    for _ in range(rounds):
        found: list[Path] = []
        for f in todo:
            for m in INCLUDE_DIRECTIVE.finditer(_read(f)):
                name = m.group(1).decode("utf-8", "replace").strip()
                hit = _resolve_bare(name, f, by_rel, known)
                if hit is not None and hit not in chosen and hit not in found:
                    found.append(hit)
        if not found:
            break
        chosen += found
        todo = found
    return chosen


def _resolve_bare(include: str, includer: Path, by_rel: dict[str, Path], known: set[Path]) -> Path | None:
    beside = Path(os.path.normpath(includer.parent / include))
    if beside in known:
        return beside
    include = include.lstrip("./")
    if include in by_rel:
        return by_rel[include]
    if "/" not in include:
        return None
    hits = [p for r, p in by_rel.items() if r.endswith("/" + include)]
    return hits[0] if len(hits) == 1 else None


def _config_template(result: SourceSet, path: Path) -> bool:
    """Record a config-header template whose header the tree lacks; True for any template."""
    generated = generated_path(path)
    if generated is None:
        return False
    if not generated.exists() and len(result.config_templates) < MAX_TEMPLATES:
        result.config_templates.setdefault(generated, path)
    return True


_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
# a project macro that stands for a CUDA name (jaxlib's `#define gpudnnRNNForward cudnnRNNForward`,
# `#define CUDA_CHECK(x) ... cudaGetErrorString ...`): its uses are CUDA uses
_DEFINE = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:\([^)\n]*\))?([^\n]*(?:\\\n[^\n]*)*)", re.M
)
_CUDA_NAME = re.compile(
    rb"\b(?:cuda|cu|cublas(?:Lt)?|cusolver\w*|cusparse|cudnn|curand|cufft|nccl|nvrtc)[A-Z]\w*|\bCU(?:DA)?_[A-Z]\w*"
)


def _through_includes(result: SourceSet, plain: list[Path], rounds: int = 4) -> None:
    """C++ files that use CUDA only through a project header chosen as CUDA, by the macros it
    defines for CUDA names (jaxlib's sources call `gpudnnRNNForward`, which `vendor.h` maps to
    cuDNN): chosen too, a few include levels deep. Including such a header is not enough: most
    files of a project include one (Caffe's layers reach `device_alternate.hpp`) and use none."""
    graph = _IncludeGraph(result.root, [*result.headers, *plain])
    macros = {h: _cuda_macros(graph.text(h)) for h in result.headers if h in graph.project}
    for _ in range(rounds):
        more = []
        for full in plain:
            names: set[bytes] = set()
            for header in graph.reached(full) & macros.keys():
                names |= macros[header]
            if names and _uses_any(graph.text(full), names):
                more.append(full)
        if not more:
            return
        for full in more:
            plain.remove(full)
            if full.suffix.lower() in HEADERS:
                result.headers.append(full)
                if full in graph.project:
                    macros[full] = _cuda_macros(graph.text(full))
            else:
                result.sources.append(full)


class _IncludeGraph:
    """The project's quoted includes, each file read and each include resolved once."""

    def __init__(self, root: Path, files: list[Path]) -> None:
        self.project = {p for p in files if p.is_relative_to(root)}
        self._by_rel = {str(p.relative_to(root)).replace(os.sep, "/"): p for p in self.project}
        self._texts: dict[Path, bytes] = {}
        self._edges: dict[Path, list[Path]] = {}

    def text(self, path: Path) -> bytes:
        if path not in self._texts:
            self._texts[path] = _read(path)
        return self._texts[path]

    def includes(self, path: Path) -> list[Path]:
        if path not in self._edges:
            found = (
                _resolve(m.group(1).decode("utf-8", "replace"), self._by_rel)
                for m in _QUOTED_INCLUDE.finditer(self.text(path))
            )
            self._edges[path] = [f for f in found if f is not None]
        return self._edges[path]

    def reached(self, path: Path, depth: int = 4) -> set[Path]:
        """The project files a file reaches through quoted includes, `depth` levels deep."""
        seen: set[Path] = set()
        todo = [path]
        for _ in range(depth):
            todo = [n for p in todo for n in self.includes(p) if n not in seen]
            seen.update(todo)
        return seen


def _cuda_macros(text: bytes) -> set[bytes]:
    """The names a header #defines whose bodies name CUDA APIs."""
    return {m.group(1) for m in _DEFINE.finditer(text) if _CUDA_NAME.search(m.group(2))}


def _resolve(include: str, by_rel: dict[str, Path]) -> Path | None:
    """A quoted include's project file: the same path, or the one path it ends."""
    include = include.lstrip("./")
    if include in by_rel:
        return by_rel[include]
    hits = [p for r, p in by_rel.items() if r.endswith("/" + include)]
    return hits[0] if len(hits) == 1 else None


def _uses_any(data: bytes, names: set[bytes]) -> bool:
    words = set(re.findall(rb"[A-Za-z_]\w*", data))
    return not words.isdisjoint(names)


def header_index(files: set[Path]) -> dict[str, tuple[str, ...]]:
    """basename -> absolute paths, so a header that is not found can be located in the tree."""
    index: dict[str, list[str]] = {}
    for f in sorted(files):
        index.setdefault(f.name, []).append(str(f))
    return {k: tuple(v) for k, v in index.items()}
