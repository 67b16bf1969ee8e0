"""One pass over a file's raw token stream: directives, inactive blocks, suppressions, identifiers.

libclang lexes the file once (``clang_tokenize`` over the whole file); we read each CXToken's kind,
raw location and length directly, which is about 20x faster than the bindings' Token objects.
Comments and string literals are single tokens, so nothing here can match inside them.
"""

from __future__ import annotations

import bisect
import ctypes
import re
from dataclasses import dataclass, field

import clang.cindex as ci

from hipscan.frontend.clang import file_location, skipped_ranges
from hipscan.platforms import hip_build
from hipscan.ppexpr import evaluate

_lib = ci.conf.lib

PUNCT, KEYWORD, IDENT, LITERAL, COMMENT = 0, 1, 2, 3, 4
SUPPRESS = re.compile(r"hipscan:\s*ignore(?:\[([^\]]*)\])?")
# Conditions that are false in a host-side parse but true when nvcc compiles device code (a scan
# adds the project's own macros derived from these: hipscan.frontend.archmacros).
DEVICE_PASS_MACROS = frozenset({"__CUDA_ARCH__", "__CUDA_ARCH_LIST__", "__CUDA_ARCH_FEAT_SM90_ALL"})
CONDITIONALS = ("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif")


@dataclass(slots=True)
class Tok:
    kind: int
    offset: int
    end: int
    text: str
    line: int
    column: int


@dataclass(slots=True)
class Directive:
    kind: str
    text: str
    offset: int
    end: int  # end offset of the directive's last line
    line: int
    column: int
    names: tuple[str, ...]
    group: int  # index of the #if chain it belongs to
    header: str = ""  # for include: the name as written
    angled: bool = False


@dataclass(slots=True)
class FileTokens:
    data: bytes
    line_starts: list[int]
    tokens: list[Tok]
    directives: list[Directive] = field(default_factory=list)
    inactive: list[tuple[int, int, bool]] = field(default_factory=list)  # start, end, device_pass
    # inactive ranges that only a project's own switch keeps off (`#ifdef PTX`): start -> its names
    switched: dict[int, str] = field(default_factory=dict)
    suppressions: dict[int, frozenset[str]] = field(default_factory=dict)

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.line_starts, offset) - 1
        return i + 1, offset - self.line_starts[i] + 1

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")


def line_starts(data: bytes) -> list[int]:
    starts = [0]
    find = data.find
    i = find(b"\n")
    while i >= 0:
        starts.append(i + 1)
        i = find(b"\n", i + 1)
    return starts


def tokenize(
    tu: ci.TranslationUnit, cfile: ci.File, data: bytes, device_macros: frozenset[str] = DEVICE_PASS_MACROS
) -> FileTokens:
    starts = line_starts(data)
    ft = FileTokens(data=data, line_starts=starts, tokens=[])
    if not data:
        return ft
    extent = ci.SourceRange.from_locations(
        ci.SourceLocation.from_offset(tu, cfile, 0),
        ci.SourceLocation.from_offset(tu, cfile, len(data)),
    )
    toks = ctypes.POINTER(ci.Token)()
    count = ctypes.c_uint()
    _lib.clang_tokenize(tu, extent, ctypes.byref(toks), ctypes.byref(count))
    n = count.value
    if not n:
        return ft
    try:
        first = toks[0]
        loc = _lib.clang_getTokenLocation(tu, first)
        _, _, _, first_offset = file_location(loc)
        base = first.int_data[1] - first_offset
        out = ft.tokens
        append = out.append
        line_idx = 0
        nlines = len(starts)
        for i in range(n):
            t = toks[i]
            d = t.int_data
            off = d[1] - base
            end = off + d[2]
            while line_idx + 1 < nlines and starts[line_idx + 1] <= off:
                line_idx += 1
            text = data[off:end].decode("utf-8", "replace")
            append(Tok(d[0], off, end, text, line_idx + 1, off - starts[line_idx] + 1))
    finally:
        _lib.clang_disposeTokens(tu, toks, n)
    _scan_directives(ft)
    _mark_inactive(ft, skipped_ranges(tu, cfile), device_macros)
    _scan_suppressions(ft)
    return ft


def _directive_end(data: bytes, offset: int) -> int:
    """End offset of the logical line starting at offset (backslash continuations joined)."""
    while True:
        nl = data.find(b"\n", offset)
        if nl < 0:
            return len(data)
        j = nl - 1
        if j >= 0 and data[j : j + 1] == b"\r":
            j -= 1
        if j >= 0 and data[j : j + 1] == b"\\":
            offset = nl + 1
            continue
        return nl


def _scan_directives(ft: FileTokens) -> None:
    tokens = ft.tokens
    stack: list[int] = []
    groups = 0
    i = 0
    n = len(tokens)
    prev_line = 0
    while i < n:
        t = tokens[i]
        if t.kind == PUNCT and t.text == "#" and t.line != prev_line and i + 1 < n:
            kw = tokens[i + 1]
            end = _directive_end(ft.data, t.offset)
            j = i + 2
            body: list[Tok] = []
            while j < n and tokens[j].offset < end:
                body.append(tokens[j])
                j += 1
            body = [b for b in body if b.kind != COMMENT]
            kind = kw.text
            names = tuple(b.text for b in body if b.kind in (IDENT, KEYWORD))
            if kind in ("if", "ifdef", "ifndef"):
                group = groups
                groups += 1
                stack.append(group)
            elif kind in CONDITIONALS[3:] and stack:
                group = stack[-1]
                if kind == "endif":
                    stack.pop()
            else:
                group = stack[-1] if stack else -1
            d = Directive(
                kind=kind,
                text=ft.text(body[0].offset, body[-1].end) if body else "",  # as written
                offset=t.offset,
                end=end,
                line=t.line,
                column=t.column,
                names=names,
                group=group,
            )
            if kind == "include" or kind == "include_next" or kind == "import":
                if body and body[0].kind == LITERAL:
                    d.header = body[0].text.strip('"')
                elif body and body[0].text == "<":
                    close = next((k for k, b in enumerate(body) if b.text == ">"), len(body))
                    d.header = ft.text(body[0].end, body[close].offset if close < len(body) else end)
                    d.angled = True
            ft.directives.append(d)
            prev_line = ft.line_col(end)[0] if end < len(ft.data) else t.line
            i = j
            continue
        prev_line = t.line if t.kind != COMMENT else prev_line
        i += 1


def _mark_inactive(ft: FileTokens, ranges: list[tuple[int, int]], device_macros: frozenset[str]) -> None:
    if not ranges:
        return
    group_names: dict[int, set[str]] = {}
    for d in ft.directives:
        if d.group >= 0 and d.kind in CONDITIONALS:
            group_names.setdefault(d.group, set()).update(d.names)
    offsets = [d.offset for d in ft.directives]
    for start, end in ranges:
        k = bisect.bisect_right(offsets, start) - 1
        device = False
        if k >= 0:
            d = ft.directives[k]
            device = bool(group_names.get(d.group, set()) & device_macros)
            if d.kind in ("if", "elif") and evaluate(d.text, {}) == 0:
                device = False  # `#if 0 && defined(__CUDA_ARCH__)`: dead in every build
            elif not device:
                switch = _project_switch(group_names.get(d.group, set()))
                if switch:
                    ft.switched[start] = switch
        ft.inactive.append((start, end, device))


def _project_switch(names: set[str]) -> str:
    """The names of a condition made only of a project's own switches (`PTX`, `LEGION_REDOP_HALF`),
    or "" when any name is the toolchain's, a platform's or another back end's
    (hipscan/data/platforms.toml)."""
    build = hip_build()
    if not names or not all(build.project_option(n) for n in names):
        return ""
    return ", ".join(sorted(names))


def _scan_suppressions(ft: FileTokens) -> None:
    """``// hipscan: ignore[RULE,...]`` applies to its own line and, alone on a line, the next."""
    code_lines = {t.line for t in ft.tokens if t.kind != COMMENT}
    for t in ft.tokens:
        if t.kind != COMMENT or "hipscan" not in t.text:
            continue
        m = SUPPRESS.search(t.text)
        if not m:
            continue
        ids = frozenset(x.strip() for x in (m.group(1) or "*").split(",") if x.strip()) or frozenset("*")
        end_line = ft.line_col(t.end - 1)[0]
        targets = {t.line, end_line}
        if t.line not in code_lines or end_line not in code_lines:
            targets.add(end_line + 1)
        for line in targets:
            ft.suppressions[line] = ft.suppressions.get(line, frozenset()) | ids
