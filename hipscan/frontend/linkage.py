"""Includes written inside ``extern "C" { ... }`` and the toolkit headers they bring in.

nvcc pre-includes ``cuda_runtime.h``, so a project header that includes it again inside a C
linkage block costs nothing there; hipcc does not, and the HIP headers it reaches instead are
C++ (templates, overloads): "templates must have C++ linkage". Which headers an include reaches
is a preprocessor question the AST cannot answer once include guards have skipped a header, so
the project headers' own ``#include`` lines are read (the names only, never compiled).
"""

from __future__ import annotations

import os
import re

import clang.cindex as ci

from hipscan.frontend.tokens import FileTokens

# an #include line and the name it includes (read a line at a time)
INCLUDE_LINE = re.compile(rb'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
_EXTERN_C = re.compile(rb'extern\s*"C"\s*\{')
MAX_HEADERS = 64  # project headers followed from one include
MAX_NAMES = 64  # reached non-project names kept


def c_linkage_ranges(
    tu: ci.TranslationUnit, files: dict[str, tuple[str, FileTokens]]
) -> dict[str, list[tuple[int, int]]]:
    """Per carried file (clang's name): the line spans of its top-level `extern "C" { }` blocks."""
    out: dict[str, list[tuple[int, int]]] = {}
    if not any(_EXTERN_C.search(ft.data) for _rel, ft in files.values()):
        return out  # most files have none: no walk over the unit's top-level declarations
    for c in tu.cursor.get_children():
        if c.kind != ci.CursorKind.LINKAGE_SPEC:
            continue
        f = c.extent.start.file
        if f is None or f.name not in files:
            continue
        if c.extent.end.file is None or c.extent.end.file.name != f.name:
            continue
        data = files[f.name][1].data
        head = data[c.extent.start.offset : c.extent.start.offset + 32]
        if _EXTERN_C.match(head):
            out.setdefault(f.name, []).append((c.extent.start.line, c.extent.end.line))
    return out


def c_linkage_includes(
    tu: ci.TranslationUnit,
    files: dict[str, tuple[str, FileTokens]],
    include_map: dict[tuple[str, int], str],
    root: str,
) -> dict[tuple[str, int], tuple[str, ...]]:
    """(file, line) of each #include inside an `extern "C"` block -> the non-project headers it
    reaches: itself when it is not a project header, else those its project headers include."""
    ranges = c_linkage_ranges(tu, files)
    if not ranges:
        return {}
    by_path = {(os.path.normpath(src), line): rel for (src, line), rel in include_map.items()}
    out: dict[tuple[str, int], tuple[str, ...]] = {}
    for name, spans in ranges.items():
        for d in files[name][1].directives:
            if d.kind != "include" or not any(s <= d.line <= e for s, e in spans):
                continue
            resolved = include_map.get((name, d.line), "")
            if not resolved:
                out[(name, d.line)] = (d.header,)
                continue
            out[(name, d.line)] = _reached(os.path.join(root, resolved), by_path, root)
    return out


def _reached(header: str, by_path: dict[tuple[str, int], str], root: str) -> tuple[str, ...]:
    """Names of the non-project headers the project header includes, directly or through other
    project headers (their #include lines, resolved as the parse resolved them)."""
    seen = {header}
    todo = [header]
    names: dict[str, None] = {}
    while todo and len(seen) <= MAX_HEADERS:
        current = todo.pop()
        try:
            with open(current, "rb") as fh:
                data = fh.read(1 << 20)
        except OSError:
            continue
        for line, text in enumerate(data.splitlines(), 1):
            m = INCLUDE_LINE.match(text) if b"include" in text else None
            if m is None:
                continue
            rel = by_path.get((current, line), "")
            if not rel:
                local = os.path.normpath(
                    os.path.join(os.path.dirname(current), m.group(1).decode("utf-8", "replace"))
                )
                if local.startswith(root.rstrip("/") + "/") and os.path.isfile(local):
                    rel = os.path.relpath(local, root)
            if rel:
                full = os.path.join(root, rel)
                if full not in seen:
                    seen.add(full)
                    todo.append(full)
            elif len(names) < MAX_NAMES:
                names[m.group(1).decode("utf-8", "replace")] = None
    return tuple(names)
