"""Third-party code bundled in a project's tree: found once per tree, priced apart, not ported.

A port swaps a bundled CUB for hipCUB; it does not port CUB's PTX and dynamic parallelism. So a
bundled tree is reported once ("bundled CUB: use hipCUB") with its own small effort, and the
scan leaves it out (``--include-vendored`` keeps it). Trees are recognised by folder name
(``third_party/`` ...), by ``.gitmodules`` and by content (a ``cub.cuh`` that defines CUB's
namespace macros); what to recognise lives in ``hipscan/data/vendored.toml``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath

from hipscan.frontend.discover import INCLUDE_DIRECTIVE

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

_CONTENT_BYTES = 65536


@dataclass(frozen=True, slots=True)
class Library:
    name: str
    names: frozenset[str]
    markers: frozenset[str]
    content: re.Pattern[str]
    advice: str
    hours: tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Knowledge:
    folders: frozenset[str]
    own_code_folders: frozenset[str]
    bundle_files: re.Pattern[str]
    libraries: tuple[Library, ...]
    unknown_advice: str
    unknown_hours: tuple[float, float, float]


@lru_cache(maxsize=1)
def knowledge() -> Knowledge:
    text = resources.files("hipscan.data").joinpath("vendored.toml").read_text("utf-8")
    doc = tomllib.loads(text)
    libs = tuple(
        Library(
            name=d["name"],
            names=frozenset(n.lower() for n in d.get("names", ())),
            markers=frozenset(d.get("markers", ())),
            content=re.compile(d["content"]),
            advice=d["advice"],
            hours=tuple(float(x) for x in d["hours"]),
        )
        for d in doc.get("library", ())
    )
    unknown = doc["unknown"]
    return Knowledge(
        folders=frozenset(doc["folders"]),
        own_code_folders=frozenset(doc["own_code_folders"]),
        bundle_files=re.compile(doc["bundle_files"], re.I),
        libraries=libs,
        unknown_advice=unknown["advice"],
        unknown_hours=tuple(float(x) for x in unknown["hours"]),
    )


@dataclass(frozen=True, slots=True)
class VendoredTree:
    """One bundled third-party tree, relative to the scan root."""

    path: str  # posix folder, e.g. "include/cub"
    name: str  # the library's name when recognised, else the folder's
    library: str  # "" when no known library
    how: str  # why it counts as bundled: "folder third_party", "submodule", "content of cub.cuh"
    advice: str
    hours: tuple[float, float, float]
    files: int = 0
    lines: int = 0
    findings: int = 0  # findings its headers would have had (seen through project includes)

    def contains(self, path: str) -> bool:
        return path == self.path or path.startswith(self.path + "/")

    def to_dict(self) -> dict:
        low, likely, high = self.hours
        return {
            "path": self.path,
            "name": self.name,
            "library": self.library,
            "how": self.how,
            "advice": self.advice,
            "files": self.files,
            "lines": self.lines,
            "findings_not_ported": self.findings,
            "hours": {"low": low, "likely": likely, "high": high},
        }


def _submodules(root: Path) -> list[str]:
    try:
        text = (root / ".gitmodules").read_text("utf-8", errors="replace")
    except OSError:
        return []
    return [m.group(1).strip().strip("/") for m in re.finditer(r"(?m)^\s*path\s*=\s*(.+?)\s*$", text)]


def _matches(lib: Library, path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            head = fh.read(_CONTENT_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    return bool(lib.content.search(head))


def _library_of(root: Path, folder: str, kb: Knowledge) -> tuple[Library | None, str]:
    """The library ``folder`` holds: its name and a marker file, or a marker file's content."""
    try:
        names = set(os.listdir(os.path.join(root, folder)))
    except OSError:
        return None, ""
    base = folder.rsplit("/", 1)[-1].lower()
    for lib in kb.libraries:
        for marker in sorted(lib.markers & names):
            full = root / folder / marker
            if not full.is_file():
                continue
            if base in lib.names:
                return lib, f"folder {folder.rsplit('/', 1)[-1]}/ with {marker}"
            if _matches(lib, full):
                return lib, f"content of {marker}"
    return None, ""


def _head(path: Path, limit: int = 65536) -> bytes:
    """The first bytes of a regular file (a scanned tree may hold links to devices or to huge
    files); empty for anything else."""
    try:
        if not path.is_file():
            return b""
        with path.open("rb") as fh:
            return fh.read(limit)
    except OSError:
        return b""


def _includes_project(root: Path, folder: str, path: Path) -> bool:
    """Whether a file lying directly in a third-party-named folder includes one of the project's
    own headers from outside that folder (`src/TiledArray/external/device.h` includes
    `<TiledArray/fwd.h>`), or is a CMake module the project's CMakeLists.txt includes
    (`include(external/cuda.cmake)`): the project's own glue for external libraries, not a
    bundled copy."""
    data = _head(path)
    inside = (root / folder).resolve()
    if path.suffix == ".cmake":  # a module the project's own CMakeLists.txt includes
        here = root / folder
        includers = [root / "CMakeLists.txt", here.parent / "CMakeLists.txt"]
        includers += [m for m in sorted(here.glob("*.cmake")) if m != path]  # a sibling module
        wanted = (f"{PurePosixPath(folder).name}/{path.name}", f"{folder}/{path.name}", f"/{path.name}")
        for lists in includers:
            text = _head(lists, 1 << 20).decode("utf-8", "replace")
            if any(w in text for w in wanted) or (lists.parent == here and path.name in text):
                return True
        return False
    ancestors = [root / PurePosixPath(folder).parent]
    while ancestors[-1] != root and root in ancestors[-1].parents:
        ancestors.append(ancestors[-1].parent)
    for m in INCLUDE_DIRECTIVE.finditer(data):
        name = m.group(1).decode("utf-8", "replace")
        if "/" not in name or name.startswith(("/", ".")):
            continue
        for anc in ancestors:
            target = anc / name
            if target.is_file() and inside not in target.resolve().parents:
                return True
    return False


def _found_in(folder_name: str) -> str:
    """How a tree under one of the bundle folders was found (its `VendoredTree.how`)."""
    return f"folder {folder_name}/"


def _own_cuda_sources(folder: Path, inside: list[Path], kb: Knowledge) -> bool:
    """An `external/` tree that holds nothing but CUDA sources, with no licence, readme or build
    file of its own: the project's wrappers around an external library (ecTrans's
    `external/fourier/*.cu` calling cuFFT), not a bundled copy of one."""
    if not inside or any(f.suffix not in (".cu", ".cuh") for f in inside):
        return False
    for _dirpath, _dirs, names in os.walk(folder):
        if any(kb.bundle_files.search(n) for n in names):
            return False
    return True


def find_vendored(root: Path, files: list[Path]) -> list[VendoredTree]:
    """Bundled trees among ``files`` (every file discovered under ``root``), outermost first."""
    kb = knowledge()
    rels: list[tuple[str, Path]] = []
    for f in files:
        try:
            rels.append((f.relative_to(root).as_posix(), f))
        except ValueError:
            continue
    roots: dict[str, str] = {}  # folder -> how
    glue: dict[str, bool] = {}  # a folder's loose files include the project's own headers
    for rel, full in rels:
        parts = rel.split("/")[:-1]
        for i, part in enumerate(parts):
            if part in kb.folders:
                if i + 1 < len(parts):
                    roots.setdefault("/".join(parts[: i + 2]), _found_in(part))
                else:
                    top = "/".join(parts[: i + 1])
                    if not glue.get(top):
                        glue[top] = _includes_project(root, top, full)
                break
    for top, is_glue in glue.items():
        if not is_glue:
            roots.setdefault(top, _found_in(PurePosixPath(top).name))
    for sub in _submodules(root):
        roots.setdefault(sub, "git submodule")
    # by path and content: a folder holding a known library's marker file (cub.cuh defining
    # CUB's namespace macros, Eigen/Core) is a tree, whatever its parents are called
    folders = sorted({str(PurePosixPath(rel).parent) for rel, _ in rels} - {"."})
    found: dict[str, Library] = {}
    for folder in folders:
        if any(folder == r or folder.startswith(r + "/") for r in roots):
            continue
        lib, how = _library_of(root, folder, kb)
        if lib is not None:
            roots[folder] = how
            found[folder] = lib
    kept = sorted(r for r in roots if not any(r != o and r.startswith(o + "/") for o in roots))
    trees = []
    own_code = {_found_in(name) for name in kb.own_code_folders}
    for folder in kept:
        inside = [full for rel, full in rels if rel.startswith(folder + "/")]
        lib = found.get(folder) or _library_of(root, folder, kb)[0]
        if lib is None and roots[folder] in own_code and _own_cuda_sources(root / folder, inside, kb):
            continue
        if lib is None:  # a known library further down names the tree
            for sub in folders:
                if sub.startswith(folder + "/"):
                    lib = _library_of(root, sub, kb)[0]
                    if lib is not None:
                        break
        lines = 0
        for full in inside:
            try:
                lines += full.read_bytes().count(b"\n")
            except OSError:
                pass
        trees.append(
            VendoredTree(
                path=folder,
                name=lib.name if lib else PurePosixPath(folder).name,
                library=lib.name if lib else "",
                how=roots[folder],
                advice=lib.advice if lib else kb.unknown_advice,
                hours=lib.hours if lib else kb.unknown_hours,
                files=len(inside),
                lines=lines,
            )
        )
    return trees


def owner(trees: list[VendoredTree], path: str) -> VendoredTree | None:
    """The bundled tree holding ``path`` (posix, relative to the scan root), if any."""
    for t in trees:
        if t.contains(path):
            return t
    return None
