"""One libclang parse per file: its token stream (byte offsets) and the AST sites the rewriter uses.

The token stream drives every rewrite, because it also covers macro bodies, macro arguments and
preprocessor-inactive code, which the AST does not show. The AST adds exactness where it can:
the extent of a kernel expression (``k<T, 4>``) and of each call argument, which commas alone
cannot always tell. Every AST site is checked against the tokens at its offsets, so a cursor that
comes from a macro expansion (its offsets point at the macro use, not at the code) is ignored and
the token reading is used instead.
"""

from __future__ import annotations

import bisect
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import clang.cindex as ci

FALLBACK_ARGS = (
    "-x",
    "cuda",
    "--cuda-host-only",
    "-nocudainc",
    "-nocudalib",
    "-ferror-limit=0",
)
KEEP_GOING = 0x200  # CXTranslationUnit_KeepGoing

_KINDS = {
    ci.TokenKind.IDENTIFIER: "identifier",
    ci.TokenKind.KEYWORD: "keyword",
    ci.TokenKind.PUNCTUATION: "punct",
    ci.TokenKind.LITERAL: "literal",
    ci.TokenKind.COMMENT: "comment",
}
_DECL_KINDS = frozenset(
    {
        ci.CursorKind.FUNCTION_DECL,
        ci.CursorKind.FUNCTION_TEMPLATE,
        ci.CursorKind.VAR_DECL,
        ci.CursorKind.TYPEDEF_DECL,
        ci.CursorKind.TYPE_ALIAS_DECL,
        ci.CursorKind.STRUCT_DECL,
        ci.CursorKind.CLASS_DECL,
        ci.CursorKind.UNION_DECL,
        ci.CursorKind.ENUM_DECL,
        ci.CursorKind.ENUM_CONSTANT_DECL,
        ci.CursorKind.CLASS_TEMPLATE,
    }
)
# A declaration of one of these kinds makes its name the project's even without a definition:
# `extern tcuInit *cuInit;` re-declares the driver API for dynamic loading, and renaming the uses
# but not the declaration breaks the build. (A struct forward declaration only names a tag.)
_REDECLARING_KINDS = frozenset(
    {
        ci.CursorKind.FUNCTION_DECL,
        ci.CursorKind.VAR_DECL,
        ci.CursorKind.TYPEDEF_DECL,
        ci.CursorKind.TYPE_ALIAS_DECL,
    }
)


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str  # identifier | keyword | punct | literal | comment
    text: str
    start: int  # byte offset
    end: int  # byte offset, exclusive


@dataclass(frozen=True, slots=True)
class AstLaunch:
    """``kernel<<<config>>>(args)`` as the AST sees it; offsets are byte offsets in the file."""

    kernel: tuple[int, int]
    open: int  # offset of '<<<'
    close: int  # offset of '>>>'
    config: tuple[tuple[int, int], ...]
    args: tuple[tuple[int, int], ...]
    end: int  # offset just after the closing ')'
    template: bool = False  # the kernel is a template instantiation (HIP_KERNEL_NAME(...))


@dataclass(slots=True)
class LexedFile:
    path: Path
    data: bytes
    tokens: list[Tok]
    line_starts: list[int]
    launches: dict[int, AstLaunch] = field(default_factory=dict)  # by '<<<' offset
    call_args: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)  # by name offset
    declared: set[str] = field(default_factory=set)  # names this file defines or re-declares
    declaration_names: set[int] = field(default_factory=set)  # offsets of declared names
    templates: set[str] = field(default_factory=set)  # function templates declared in this file
    # member accesses on the record types asked for: (start, end, type, member, const object)
    members: list[tuple[int, int, str, str, bool]] = field(default_factory=list)
    # line of each #include in this file -> the file the parse resolved it to (absolute): a quoted
    # "unistd.h" the compiler takes from the system is not the project's dev/unistd.h
    include_targets: dict[int, str] = field(default_factory=dict)
    parse_seconds: float = 0.0

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and byte column of an offset (clang's convention)."""
        i = bisect.bisect_right(self.line_starts, offset) - 1
        return i + 1, offset - self.line_starts[i] + 1

    def index_at(self) -> dict[int, int]:
        return {t.start: i for i, t in enumerate(self.tokens)}


def clang_args(config: object | None = None) -> list[str]:
    """The front end's shim-mode arguments (with its precompiled shim when it can build one, which
    ``make_setup`` has already checked libclang accepts), else the bare CUDA ones: the rewrite
    needs tokens first and a good AST second."""
    try:
        from hipscan.config import ScanConfig
        from hipscan.frontend.clang import make_setup
    except ImportError:
        return list(FALLBACK_ARGS)

    config = config if isinstance(config, ScanConfig) else ScanConfig()
    key = repr(config)  # a scan just before, in this process, checked the same setup
    if key not in _ARGS:
        setup = make_setup(config)
        _ARGS[key] = list(setup.args) + list(setup.prefix) + [f"-I{d}" for d in setup.include_dirs]
    return list(_ARGS[key])


_ARGS: dict[str, list[str]] = {}


def line_starts(data: bytes) -> list[int]:
    starts = [0]
    pos = data.find(b"\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = data.find(b"\n", pos + 1)
    return starts


def lex_file(
    path: Path,
    args: list[str],
    configure_functions: frozenset[str],
    call_names: frozenset[str],
    index: ci.Index | None = None,
    member_types: frozenset[str] = frozenset(),
) -> LexedFile:
    """Parse ``path`` once; tokens of the file itself plus the AST sites spelled in it."""
    data = path.read_bytes()
    index = index or ci.Index.create()
    t0 = time.perf_counter()
    tu = index.parse(str(path), args=args, options=KEEP_GOING)
    tokens = []
    for t in tu.get_tokens(extent=tu.cursor.extent):
        try:
            text = t.spelling
        except UnicodeDecodeError:  # a comment or string in another encoding: keep its bytes
            start, end = t.extent.start.offset, t.extent.end.offset
            tokens.append(Tok(_KINDS[t.kind], data[start:end].decode("utf-8", "replace"), start, end))
            continue
        start = t.location.offset
        end = start + len(text.encode("utf-8"))
        if data[start:end].decode("utf-8", "replace") != text:  # a line splice inside the token
            end = t.extent.end.offset
        tokens.append(Tok(_KINDS[t.kind], text, start, end))
    lexed = LexedFile(path=path, data=data, tokens=tokens, line_starts=line_starts(data))
    _collect_ast(tu, lexed, configure_functions, call_names, member_types)
    for inc in tu.get_includes():
        if inc.depth == 1 and inc.include is not None:
            lexed.include_targets[inc.location.line] = os.path.realpath(inc.include.name)
    lexed.parse_seconds = time.perf_counter() - t0
    return lexed


def _extent(cursor: ci.Cursor, fname: str) -> tuple[int, int] | None:
    ext = cursor.extent
    if ext.start.file is None or ext.start.file.name != fname:
        return None
    if ext.end.file is None or ext.end.file.name != fname:
        return None
    if ext.end.offset <= ext.start.offset:
        return None
    return ext.start.offset, ext.end.offset


def _collect_ast(
    tu: ci.TranslationUnit,
    lexed: LexedFile,
    configure_functions: frozenset[str],
    call_names: frozenset[str],
    member_types: frozenset[str] = frozenset(),
) -> None:
    fname = tu.spelling
    starts = {t.start: t for t in lexed.tokens}
    ends = {t.end: t for t in lexed.tokens}

    def visit(cursor: ci.Cursor) -> None:
        kind = cursor.kind
        if kind in _DECL_KINDS or kind == ci.CursorKind.FIELD_DECL:
            tok = starts.get(cursor.location.offset)
            if kind == ci.CursorKind.FUNCTION_TEMPLATE:
                lexed.templates.add(cursor.spelling)
            if tok is not None and tok.text == cursor.spelling:
                lexed.declaration_names.add(tok.start)
                if kind in _REDECLARING_KINDS or (kind in _DECL_KINDS and cursor.is_definition()):
                    lexed.declared.add(cursor.spelling)
        elif kind == ci.CursorKind.CALL_EXPR:
            children = list(cursor.get_children())
            if len(children) >= 2 and children[1].kind == ci.CursorKind.CALL_EXPR:
                if children[1].spelling in configure_functions:
                    launch = _launch(cursor, children, fname, starts, ends)
                    if launch is not None:
                        lexed.launches[launch.open] = launch
            if cursor.spelling in call_names and children:
                _call(cursor, children, fname, starts, lexed)
        elif kind == ci.CursorKind.MEMBER_REF_EXPR and member_types:
            _member(cursor, fname, starts, ends, member_types, lexed)
        for child in cursor.get_children():
            visit(child)  # children of a cursor spelled here are too (macro ones fail validation)

    for top in tu.cursor.get_children():
        loc = top.location
        if loc.file is not None and loc.file.name == fname:
            visit(top)


def _member(cursor, fname, starts, ends, member_types, lexed: LexedFile) -> None:
    """``obj.m`` / ``ptr->m`` on one of ``member_types``, spelled in this file (not a macro's)."""
    base = next(iter(cursor.get_children()), None)
    ext = _extent(cursor, fname)
    if base is None or ext is None or starts.get(ext[0]) is None:
        return
    last = ends.get(ext[1])
    if last is None or last.text != cursor.spelling:
        return
    btype = base.type
    if btype.kind == ci.TypeKind.POINTER:
        btype = btype.get_pointee()
    name = btype.get_canonical().spelling.removeprefix("const ").removeprefix("struct ")
    if name in member_types:
        lexed.members.append((ext[0], ext[1], name, cursor.spelling, btype.is_const_qualified()))


def _launch(cursor, children, fname, starts, ends) -> AstLaunch | None:
    call = _extent(cursor, fname)
    kernel = _extent(children[0], fname)
    config = _extent(children[1], fname)
    if call is None or kernel is None or config is None:
        return None
    open_tok, close_tok = starts.get(config[0]), ends.get(config[1])
    last = ends.get(call[1])
    if open_tok is None or open_tok.text != "<<<" or close_tok is None or close_tok.text != ">>>":
        return None
    if last is None or last.text != ")" or kernel[1] > open_tok.start:
        return None
    cfg = []
    for arg in list(children[1].get_children())[1:]:
        ext = _extent(arg, fname)
        if ext and open_tok.end <= ext[0] and ext[1] <= close_tok.start:
            cfg.append(ext)
    args = []
    for arg in children[2:]:
        ext = _extent(arg, fname)
        if ext is None or not (close_tok.end <= ext[0] and ext[1] <= last.start):
            return None  # an argument we cannot place: let the token reading decide
        args.append(ext)
    callee = cursor.referenced
    template = callee is not None and callee.get_num_template_arguments() >= 0
    return AstLaunch(kernel, open_tok.start, close_tok.start, tuple(cfg), tuple(args), call[1], template)


def _call(cursor, children, fname, starts, lexed: LexedFile) -> None:
    callee = _extent(children[0], fname)
    if callee is None:
        return
    name_tok = starts.get(callee[0])
    if name_tok is None or name_tok.text != cursor.spelling:
        return
    args = []
    for arg in children[1:]:
        ext = _extent(arg, fname)
        if ext is None or starts.get(ext[0]) is None:
            return
        args.append(ext)
    lexed.call_args[name_tok.start] = tuple(args)
