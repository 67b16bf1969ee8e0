"""Translate a set of files of one source tree into a mirrored HIP tree."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import clang.cindex as ci

from hipscan import __version__
from hipscan.model import Finding
from hipscan.translate.lexing import LexedFile, clang_args, lex_file
from hipscan.translate.mapping import HipMap, load_hip_map
from hipscan.translate.markers import insert_markers, plan_markers, summary_line
from hipscan.translate.options import HEADER_SUFFIXES, TranslateOptions
from hipscan.translate.outputs import Manifest, check_outdir, write_output
from hipscan.translate.result import FileTranslation, IncludeChange
from hipscan.translate.rewrite import Rewriter
from hipscan.translate.source import SourceLayout, header_name

IMPLICIT_INCLUDE = "hip/hip_runtime.h"


def output_name(rel: str, options: TranslateOptions) -> str:
    for suffix in options.rename_suffixes:
        if rel.endswith(suffix):
            return rel[: -len(suffix)] + options.hip_ext
    return rel


@dataclass(slots=True)
class ProjectFiles:
    """Where each translated file lands, and how an #include name finds a project file."""

    outputs: dict[str, str]  # source rel -> output rel
    root: Path | None = None

    def include(self, including: str, lx: LexedFile, line: int, name: str, angled: bool) -> str | None:
        """The project file an #include at ``line`` names: the file the parse found, when it
        found one (a system header is no project file), else the best guess by name."""
        found = lx.include_targets.get(line)
        if found is None or self.root is None:
            return self.resolve(including, name, angled)
        try:
            rel = Path(found).relative_to(self.root).as_posix()
        except ValueError:
            return None
        return rel if rel in self.outputs else None

    def resolve(self, including: str, name: str, angled: bool) -> str | None:
        """The project file (source rel) an include names.

        A quoted name is looked up next to the including file first. Then a header in the
        including file's own folder or one of its parents wins, the nearest first. Otherwise the
        first match in path order: the header a build's -I folder would not tell apart, and the
        one the scan's front end resolves too, so that compile errors and findings speak of the
        same file (a sibling folder's private copy, e.g. one sample's own helper header, is no
        better a guess than a shared folder)."""
        name = name.replace("\\", "/")
        if not angled:
            here = posixpath.normpath(posixpath.join(posixpath.dirname(including), name))
            if here in self.outputs:
                return here
        suffix = "/" + name.lstrip("./")
        matches = sorted(r for r in self.outputs if r == name or r.endswith(suffix))
        if not matches:
            return None
        folder = posixpath.dirname(including)
        best: tuple[int, str] | None = None
        for r in matches:
            base = r[: len(r) - len(suffix)] if r != name else ""
            if base == "" or folder == base or folder.startswith(base + "/"):
                depth = len(PurePosixPath(base).parts)
                if best is None or depth > best[0]:
                    best = (depth, r)
        return best[1] if best is not None else matches[0]


def _include_rewriter(project: ProjectFiles, rel: str, result: FileTranslation, lx: LexedFile):
    """The callback the rewriter asks about each #include: new name for project files."""

    def rewrite(name: str, angled: bool, line: int) -> str | None:
        target = project.include(rel, lx, line, name, angled)
        if target is None:
            return None
        out = project.outputs[target]
        result.include_lines.append((line, out))
        new = name
        if out != target:
            common = len(posixpath.commonprefix([target, out]))
            old_tail, new_tail = target[common:], out[common:]
            if name.endswith(old_tail):
                new = name[: len(name) - len(old_tail)] + new_tail
        if out.endswith(new):
            directory = out[: -len(new)].rstrip("/") or "."
            if directory not in result.include_dirs:
                result.include_dirs.append(directory)
        return new

    return rewrite


def _own_names(lx: LexedFile, layout: SourceLayout) -> set[str]:
    """Names a file itself defines (functions, types, variables, macros)."""
    names = set(lx.declared)
    for d in layout.directives:
        if d.keyword == "define" and d.first + 2 <= d.last:
            names.add(lx.tokens[d.first + 2].text)
    return names


def _project_names(lexed: dict[str, LexedFile], project: ProjectFiles) -> dict[str, frozenset[str]]:
    """Per file: names defined by it, by the project headers it includes (transitively) and by the
    files that include it (transitively). The project's own definitions are never renamed: a
    header testing `#ifdef __cuda_cuda_h__` or calling `cuInit` means the project's own macro or
    function pointer when an includer defines them (a driver-API loading layer). One sample's
    private stand-in for a CUDA type does not stop the renaming in an unrelated file."""
    own: dict[str, set[str]] = {}
    includes: dict[str, list[str]] = {}
    for rel, lx in lexed.items():
        layout = SourceLayout(lx)
        own[rel] = _own_names(lx, layout)
        includes[rel] = []
        for d in layout.directives:
            header = header_name(lx, d) if d.keyword in ("include", "include_next") else None
            if header is not None:
                line = layout.line_of(lx.tokens[d.first].start)
                target = project.include(rel, lx, line, header[0], header[1])
                if target is not None:
                    includes[rel].append(target)
    closure: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    for rel in lexed:
        seen, todo = {rel}, [rel]
        while todo:
            for inc in includes.get(todo.pop(), []):
                if inc not in seen:
                    seen.add(inc)
                    todo.append(inc)
        closure[rel] = seen
        names[rel] = set().union(*(own.get(f, set()) for f in seen))
    out = {rel: set(n) for rel, n in names.items()}
    for rel, seen in closure.items():
        for header in seen:
            if header != rel and header in out:
                out[header] |= names[rel]
    return {rel: frozenset(n) for rel, n in out.items()}


def translate_tree(
    root: Path,
    files: list[Path],
    findings: list[Finding],
    outdir: Path,
    options: TranslateOptions | None = None,
) -> list[FileTranslation]:
    """Translate ``files`` (inside ``root``) into ``outdir``; see :class:`TranslateOptions`."""
    options = options or TranslateOptions()
    root = root.resolve()
    check_outdir(root, outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    hipmap = load_hip_map(options.roc)
    rels = []
    for f in files:
        path = (f if f.is_absolute() else root / f).resolve()
        rels.append(path.relative_to(root).as_posix())
    rels = sorted(dict.fromkeys(rels))
    project = ProjectFiles({r: output_name(r, options) for r in rels}, Path(os.path.realpath(root)))
    args = clang_args(options.config)
    index = ci.Index.create()
    call_names = frozenset(
        [
            *hipmap.symbol_calls,
            *hipmap.arg_casts,
            *hipmap.default_args,
            *hipmap.arity_renames,
            *hipmap.null_args,
            *hipmap.index_casts,
        ]
    )
    lexed: dict[str, LexedFile] = {}
    results: dict[str, FileTranslation] = {}
    for rel in rels:
        result = FileTranslation(source=rel, output=project.outputs[rel])
        result.is_header = rel.endswith(HEADER_SUFFIXES)
        results[rel] = result
        try:
            lexed[rel] = lex_file(
                root / rel,
                args,
                hipmap.configure_functions,
                call_names,
                index,
                frozenset(hipmap.member_casts),
            )
        except (OSError, ci.TranslationUnitLoadError) as exc:
            result.status = f"error: {exc}"
    names = _project_names(lexed, project)
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    manifest = Manifest.load(outdir)
    for rel, lx in lexed.items():
        result = results[rel]
        data = _translate_one(lx, result, by_path.get(rel, []), hipmap, project, names[rel], options)
        result.status = write_output(manifest, result.output, rel, data, options.force)
    manifest.save(root)
    return [results[r] for r in rels]


def _conditionals(layout: SourceLayout) -> list[tuple[int, int, tuple[int, ...]]]:
    """Each #if...#endif block: its first and last line and the lines of its #if/#elif/#else."""
    out: list[tuple[int, int, tuple[int, ...]]] = []
    stack: list[tuple[int, list[int]]] = []
    for d in layout.directives:
        line = layout.line_of(layout.lexed.tokens[d.first].start)
        if d.keyword in ("if", "ifdef", "ifndef"):
            stack.append((line, [line]))
        elif d.keyword in ("elif", "else", "elifdef", "elifndef") and stack:
            stack[-1][1].append(line)
        elif d.keyword == "endif" and stack:
            first, lines = stack.pop()
            out.append((first, line, tuple(lines)))
    return out


def _include_guard(lx: LexedFile, layout: SourceLayout) -> bool:
    """Is the file wrapped in a classic include guard (#ifndef G / #define G ... #endif)?"""
    ds = layout.directives
    if len(ds) < 3 or ds[0].keyword != "ifndef" or ds[-1].keyword != "endif" or ds[-1].branch != ds[0].branch:
        return False
    toks = lx.tokens
    if ds[0].first + 2 > ds[0].last:
        return False
    guard = toks[ds[0].first + 2].text
    defines = (d for d in ds[1:] if d.keyword == "define" and d.branch == ds[0].branch)
    first_define = next(defines, None)  # `#pragma once` may come between #ifndef and #define
    if first_define is None or first_define.first + 2 > first_define.last:
        return False
    if toks[first_define.first + 2].text != guard:
        return False
    code = [k for k, t in enumerate(toks) if t.kind != "comment"]
    return bool(code) and code[0] == ds[0].first and ds[-1].first <= code[-1] <= ds[-1].last


def _runtime_place(lx: LexedFile, layout: SourceLayout, rewrite) -> tuple[int, str]:
    """Where the implicit runtime include goes, and what the file's first #include becomes.

    As hipify-clang places it: after a leading ``#pragma once`` or include guard's ``#ifndef``,
    whichever comes first, else just before the first #include that every build of the file sees
    (not one inside an ``#ifdef _WIN32``). A file whose first #include already becomes the runtime
    header needs no other."""
    guarded = _include_guard(lx, layout)
    mapped = {c.line: c.new for c in rewrite.includes if c.why == "mapped"}
    at: int | None = None
    for k, d in enumerate(layout.directives):
        line = layout.line_of(lx.tokens[d.first].start)
        once = d.keyword == "pragma" and d.first + 2 <= d.last and lx.tokens[d.first + 2].text == "once"
        if at is None and (once or (k == 0 and guarded)):
            at = line + 1
        top = d.branch == () or (guarded and d.branch == layout.directives[0].branch)
        if d.keyword in ("include", "include_next") and top:
            return (at if at is not None else line), mapped.get(line, "")
    return (at if at is not None else 1), ""


def _needs_runtime(lx: LexedFile, rewrite) -> bool:
    """A source (not a header) with kernels or launches that includes no CUDA header itself."""
    if lx.path.name.endswith(HEADER_SUFFIXES) or any(i.why == "mapped" for i in rewrite.includes):
        return False
    return any(t.text in ("__global__", "<<<") for t in lx.tokens if t.kind != "comment")


def _translate_one(
    lx: LexedFile,
    result: FileTranslation,
    findings: list[Finding],
    hipmap: HipMap,
    project: ProjectFiles,
    names: frozenset[str],
    options: TranslateOptions,
) -> bytes:
    """Fill ``result`` and return the emitted bytes."""
    layout = SourceLayout(lx)
    rewrite = Rewriter(
        lx,
        layout,
        hipmap,
        launch_syntax=options.launch_syntax,
        project_names=names,
        project_include=_include_rewriter(project, result.source, result, lx),
    ).run()
    edited = rewrite.apply(lx.data)
    planned = plan_markers(layout, findings, rewrite.unconverted, hipmap, rewrite.manual)
    summary = summary_line(result.source, __version__, planned)
    head: tuple[str, ...] = ()
    head_at, first_include = _runtime_place(lx, layout, rewrite)
    if first_include != IMPLICIT_INCLUDE and (result.output != result.source or _needs_runtime(lx, rewrite)):
        # nvcc includes cuda_runtime.h before anything else in every .cu file (and in a source
        # it compiles as CUDA: one with kernels or launches); hipcc needs it spelled out, and
        # first (some HIP headers are not self-contained)
        head = (f"#include <{IMPLICIT_INCLUDE}>  // implicit in nvcc builds",)
        rewrite.includes.insert(0, IncludeChange(0, "", IMPLICIT_INCLUDE, "implicit"))
    data, line_map, markers = insert_markers(edited, layout, planned, summary, head, head_at)
    result.converted = dict(rewrite.converted)
    result.renamed = rewrite.renamed
    result.unconverted = rewrite.unconverted
    result.includes = rewrite.includes
    result.symbols_wrapped = rewrite.symbols_wrapped
    result.args_cast = rewrite.args_cast
    result.default_args_added = rewrite.default_args_added
    result.args_dropped = rewrite.args_dropped
    result.compile_flags = rewrite.compile_flags
    result.conditionals = _conditionals(layout)
    for tok in lx.tokens:
        if tok.kind == "identifier":
            result.ident_lines.setdefault(tok.text, []).append(layout.line_of(tok.start))
    result.launches_rewritten = rewrite.launches_rewritten
    result.launches_kept = rewrite.launches_kept
    result.line_map = line_map
    result.markers = markers
    result.parse_seconds = lx.parse_seconds
    result.has_cuda = bool(
        rewrite.converted
        or rewrite.unconverted
        or rewrite.launches_rewritten
        or rewrite.launches_kept
        or any(i.why in ("mapped", "dropped") for i in rewrite.includes)
        or findings
        or result.source.endswith((".cu", ".cuh"))
    )
    return data
