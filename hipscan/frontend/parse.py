"""Parse one source file into FileFacts: read, classify, parse (twice when names are missing), extract."""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import clang.cindex as ci

from hipscan.facts import FileFacts
from hipscan.frontend.clang import KEEP_GOING, ParseSetup, pch_failed, skipped_ranges
from hipscan.frontend.extract import Extractor, compiled_as_c, relpath, token_index
from hipscan.frontend.linkage import INCLUDE_LINE, c_linkage_includes
from hipscan.frontend.tokens import COMMENT, DEVICE_PASS_MACROS, FileTokens, tokenize

DETAILED_RECORD = 0x01  # needed for clang_getSkippedRanges
PARSE_OPTIONS = KEEP_GOING | DETAILED_RECORD
RECOVER_HEADER = "/__hipscan__/recover.h"
# nvcc's device pass, for the code a host-side parse skips (`#if __CUDA_ARCH__ >= 700` bodies)
DEVICE_HEADER = "/__hipscan__/device_pass.h"
# (nvcc defines __CUDA_ARCH_LIST__, the architectures it builds for, in every pass since CUDA 11.5;
# a single Hopper entry reads like the __CUDA_ARCH__ above: `#if __CUDA_ARCH_LIST__ >= 900` arms)
DEVICE_PASS = "#define __CUDA_ARCH__ 900\n#define __CUDA_ARCH_LIST__ 900\n"
# what the device-pass parse adds: syntax facts only (token facts of those lines come from the
# host-side parse, which scans inactive device-pass branches token by token)
DEVICE_FACTS = (
    "functions",
    "calls",
    "launches",
    "asms",
    "decls",
    "literals",
    "members",
    "assigns",
    "out_values",
    "shared_sizes",
    "uses",
    "subscripts",
)
UNDECLARED = re.compile(
    r"use of undeclared identifier '?([A-Za-z_][A-Za-z0-9_]*)'?|unknown type name '([A-Za-z_][A-Za-z0-9_]*)'"
    r"|no template named '([A-Za-z_][A-Za-z0-9_]*)'"
)
NOT_FOUND = re.compile(r"'([^']+)' file not found")
# A name used through an unknown namespace (`thrust::complex<double>` with Thrust's headers
# absent): the chain and what follows it, which says what the last name is.
QUALIFIED_USE = re.compile(rb"((?:[A-Za-z_]\w*[ \t]*::[ \t]*)+)([A-Za-z_]\w*)[ \t]*(<|\(|[A-Za-z_*&]?)")
# An enumerator of a CUDA library header the parse did not find (`CUBLAS_OP_T`,
# `CUSPARSE_INDEX_32I`, `CUDA_R_16F`): an argument of a library call, which clang drops from the
# AST with it, so its declaration is worth a re-parse. (The workers do not load the API table:
# the libraries' enumerator prefixes stand for it.)
LIBRARY_CONSTANT = re.compile(
    r"^(?:CUBLAS|CUBLASLT|CUSPARSE|CUSOLVER|CUFFT|CURAND|CUDNN|NCCL|CUDA|CUTENSOR|NVJPEG|NPP)_[A-Z0-9_]+$"
)
# An unknown type name that reads as an integer type (`gko::uint32` from Ginkgo's generated
# types header, `u32`, `index_type`): declared as an integer for the re-parse, so a
# `static constexpr uint32 warp_size = 32` keeps its value for the warp-width analysis.
INTEGER_TYPE_NAME = re.compile(
    r"(?i)^(u?int(8|16|32|64)?(_t)?|u?(8|16|32|64)|[su](8|16|32|64)|u(char|short|long|longlong)|"
    r"(index|size|offset|count|dim|lane|mask|word)(_?t|_?type)?)$"
)
MAX_DIAGNOSTICS = 20
# system header folders: a report may quote a diagnostic located there
SYSTEM_DIRS = ("/usr/include", "/usr/local/include", "/usr/lib/gcc", "/usr/lib/llvm", "/usr/lib64/gcc")
# Folders this process found missing headers in; searched after the file's own include folders
# for later files of the same scan, since one tree's files mostly share them: saves a re-parse
# per file. (Not -idirafter: that would mark the project's headers as system headers.)
_LEARNED: dict[str, dict[str, str]] = {}  # scan root -> {include name: the header it resolved to}


@dataclass
class ParseJob:
    """What a worker needs for one file; picklable."""

    path: str  # absolute
    root: str  # absolute scan root
    args: tuple[str, ...] = ()  # per-file flags (compile_commands, -I, -D)
    project_files: frozenset[str] = frozenset()  # absolute paths of every project source/header
    header_index: dict[str, tuple[str, ...]] = field(default_factory=dict)  # basename -> abs paths
    # (header, configuration) pairs whose facts are already taken: a header is walked again only
    # where different #if branches are active (`#ifdef CUDA_DRIVER_API` in a shared helper)
    skip_headers: frozenset[tuple[str, str]] = frozenset()
    # covered headers -> function-body byte ranges this parse may blank (their facts are taken):
    # parsing cuda-samples' helper_*.h bodies in every file costs about 40% of its parse time
    blank_bodies: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    device_macros: frozenset[str] = DEVICE_PASS_MACROS  # true only in nvcc's device pass
    # config headers the build would generate, absent from the tree: path -> (template, stand-in)
    generated: dict[str, tuple[str, str]] = field(default_factory=dict)


_BLANKED: dict[tuple[str, tuple[tuple[int, int], ...]], str | None] = {}  # per worker process


def _blanked_headers(job: ParseJob) -> list[tuple[str, str]]:
    """Unsaved-file contents for the headers whose function bodies this parse may skip: each
    body becomes `{` spaces `}` with its newlines kept, so every location stays where it was."""
    out = []
    for name, ranges in job.blank_bodies.items():
        key = (name, ranges)
        if key not in _BLANKED:
            _BLANKED[key] = _blank(name, ranges)
        text = _BLANKED[key]
        if text is not None:
            out.append((name, text))
    return out


def _blank(name: str, ranges: tuple[tuple[int, int], ...]) -> str | None:
    try:
        data = bytearray(Path(name).read_bytes())
    except OSError:
        return None
    for start, end in sorted(ranges, reverse=True):
        # each part starts after a body's `{` or a directive's line, ends at `}` or a `#`
        if (
            end > len(data)
            or data[start - 1 : start] not in (b"{", b"\n", b"\r")
            and data[start : start + 1] != b"\n"
        ):
            return None  # the file changed since its facts were taken
        if data[end : end + 1] not in (b"}", b"#"):
            return None
        data[start:end] = bytes(b if b == 10 else 32 for b in data[start:end])
    try:
        return data.decode("utf-8")  # libclang takes text: offsets hold only for UTF-8 files
    except UnicodeDecodeError:
        return None


def _project_configs(tu: ci.TranslationUnit, project: frozenset[str]) -> dict[str, str]:
    """Per project file the TU includes (normalised path): which of its #if branches are active."""
    configs: dict[str, str] = {}
    for inc in tu.get_includes():
        included = os.path.normpath(inc.include.name)
        if included in project and included not in configs:
            configs[included] = branch_config(tu, inc.include)
    return configs


def branch_config(tu: ci.TranslationUnit, file: ci.File) -> str:
    """Which #if branches of ``file`` this translation unit made active, as a short digest."""
    ranges = skipped_ranges(tu, file)
    return hashlib.blake2b(repr(ranges).encode(), digest_size=8).hexdigest() if ranges else ""


def read_source(path: Path, max_size: int) -> tuple[bytes | None, str]:
    """The file's bytes, or None with the reason it is skipped."""
    try:
        if path.is_symlink() and not path.exists():
            return None, "skipped: broken symbolic link"
        size = path.stat().st_size
        if size > max_size:
            return None, f"skipped: larger than --max-file-size ({size} > {max_size} bytes)"
        data = path.read_bytes()
    except PermissionError:
        return None, "skipped: permission denied"
    except OSError as exc:
        return None, f"skipped: cannot read ({exc.strerror or exc})"
    if not data.strip():
        return None, "skipped: empty file"
    if b"\0" in data[:8192]:
        return None, "skipped: binary file"
    return data, ""


def _include_tail(name: str) -> str | None:
    """``name`` without leading ``./``; None for a name that climbs (``../x.h``) or is absolute."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or ".." in parts or name.startswith("/"):
        return None
    return "/".join(parts)


def nearest_header(name: str, includer: str, job: ParseJob, configured: tuple[str, ...] = ()) -> str | None:
    """The project file a missing ``#include "name"`` most likely means: the candidate nearest
    the includer (fewest folder steps from the includer's folder, its ancestors first), else one
    in a configured include folder. None when several are equally near: a guess there would take
    a same-named header of an unrelated program (one ``graph.h`` for another)."""
    tail = _include_tail(name)
    if tail is None:
        return None
    base = tail.rsplit("/", 1)[-1]
    candidates = [c for c in job.header_index.get(base, ()) if c.endswith("/" + tail)]
    if not candidates:
        return None
    here = Path(includer).parent.parts if includer else Path(job.root).parts
    ranked: dict[int, list[str]] = {}
    for c in candidates:
        there = Path(c).parent.parts
        common = 0
        for a, b in zip(here, there, strict=False):
            if a != b:
                break
            common += 1
        ranked.setdefault((len(here) - common) + (len(there) - common), []).append(c)
    best = ranked[min(ranked)]
    if len(best) == 1:
        return best[0]
    inside = [c for c in best if any(c.startswith(d.rstrip("/") + "/") for d in configured)]
    return inside[0] if len(inside) == 1 else None


def _learned_dirs(job: ParseJob, path: str, configured: tuple[str, ...]) -> list[str]:
    """Folders earlier files of this scan needed for a missing header, where the same header is
    also the nearest one for this file: handed to the parse up front to save a re-parse (the
    parse is then checked by ``_learned_ok``)."""
    dirs = []
    for name, found in _LEARNED.get(job.root, {}).items():
        if nearest_header(name, path, job, configured) == found:
            d = found[: len(found) - len(_include_tail(name) or "")].rstrip("/")
            if d and d not in dirs:
                dirs.append(d)
    return dirs


def _search_dirs(args: list[str]) -> list[str]:
    """The include folders named in an argument list."""
    out = []
    for i, a in enumerate(args):
        for flag in ("-isystem", "-iquote", "-I"):
            if a == flag and i + 1 < len(args):
                out.append(args[i + 1])
            elif a.startswith(flag) and len(a) > len(flag):
                out.append(a[len(flag) :])
    return out


def _misresolved(
    tu: ci.TranslationUnit, added: list[str], searched: list[str], job: ParseJob, configured: tuple[str, ...]
) -> list[tuple[str, str | None]]:
    """Includes that resolved only through a folder this parse added (for another missing
    header, or learned from earlier files) to something other than the nearest header for their
    includer: (what it got, the folder that gives the nearest one, or None when that is a tie).
    Empty when every such include got what ``nearest_header`` chooses, so the result depends
    neither on which other headers were missing nor on which files were parsed before."""
    out: list[tuple[str, str | None]] = []
    lines: dict[str, list[bytes]] = {}
    for inc in tu.get_includes():
        included = os.path.normpath(inc.include.name)
        if not any(included.startswith(d + "/") for d in added) or inc.source is None:
            continue
        includer = inc.source.name
        if includer not in lines:
            try:
                lines[includer] = Path(includer).read_bytes().splitlines()
            except OSError:
                lines[includer] = []
        row = inc.location.line - 1
        m = INCLUDE_LINE.match(lines[includer][row]) if 0 <= row < len(lines[includer]) else None
        if m is None:
            continue  # a computed include: nothing to compare with
        name = m.group(1).decode("utf-8", "replace")
        plain = [os.path.dirname(includer), *searched]
        if any(os.path.normpath(os.path.join(d, name)) == included for d in plain):
            continue  # found without the added folders
        want = nearest_header(name, includer, job, configured)
        if want != included:
            tail = _include_tail(name) or ""
            out.append((included, want[: len(want) - len(tail)].rstrip("/") if want else None))
    return out


def _learn(job: ParseJob, missing: list[tuple[str, str]], configured: tuple[str, ...]) -> None:
    known = _LEARNED.setdefault(job.root, {})
    for name, includer in missing:
        found = nearest_header(name, includer, job, configured)
        if found is not None and name not in known:
            known[name] = found


def _include_dirs_for(
    missing: list[tuple[str, str]], job: ParseJob, configured: tuple[str, ...] = ()
) -> list[str]:
    """For each header that was not found, the project folder that makes the nearest candidate
    resolve (see ``nearest_header``)."""
    dirs: list[str] = []
    for name, includer in missing:
        found = nearest_header(name, includer, job, configured)
        if found is None:
            continue
        d = found[: len(found) - len(_include_tail(name) or "")].rstrip("/")
        if d and d not in dirs:
            dirs.append(d)
    return dirs


# An unknown all-capitals name written before a declaration (`RAJA_DEVICE RAJA_INLINE T f()`,
# `MFEM_HOST_DEVICE`): a project's attribute macro whose header was not found. Guessed from its
# words for the re-parse, so a device function is not read as host code.
SPECIFIER_MACRO = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_SPECIFIER_WORDS = (
    (re.compile(r"HOST_?DEVICE|DEVICE_?HOST"), "__host__ __device__"),
    (re.compile(r"GLOBAL|KERNEL"), "__global__"),
    (re.compile(r"DEVICE"), "__device__"),
    (re.compile(r"HOST"), "__host__"),
    (re.compile(r"INLINE"), "inline"),
)


# ... and the empty ones (export and visibility markers); any other capitals name may be a type
_EMPTY_SPECIFIER = re.compile(r"(EXPORT|IMPORT|API|DECL|DLL|VISIBLE|VISIBILITY|ATTR|ATTRIBUTE|EXTERN)$")


def _specifier_guess(name: str) -> str | None:
    """What an attribute macro stands for, judged by its words; None when it may be a type
    (`SUNDIALS_INDEX_TYPE` in `typedef SUNDIALS_INDEX_TYPE sunindextype;`)."""
    guess = next((spelling for words, spelling in _SPECIFIER_WORDS if words.search(name)), None)
    if guess is None and _EMPTY_SPECIFIER.search(name):
        guess = ""
    return guess


def _around(d: ci.Diagnostic, data_of: dict[str, bytes], project: frozenset[str]) -> tuple[bytes, bytes]:
    """The project source just before and from a diagnostic's location (empty elsewhere)."""
    f = d.location.file
    if f is None or (f.name not in data_of and f.name not in project):
        return b"", b""
    if f.name not in data_of:
        try:
            data_of[f.name] = Path(f.name).read_bytes()
        except OSError:
            data_of[f.name] = b""
    data, at = data_of[f.name], d.location.offset
    return data[max(0, at - 40) : at], data[at : at + 200]


def _name_at(rest: bytes, name: str) -> int:
    """Where the unknown name starts in the text from the diagnostic: there, or for a use inside
    a macro's argument (`CHECK(cublasSdot(h, ...))`, located at the macro) its first occurrence."""
    word = name.encode()
    if rest.startswith(word):
        return 0
    m = re.search(rb"(?<![\w])" + re.escape(word) + rb"(?![\w])", rest)
    return m.start() if m else 0


def _before_declarator(before: bytes, rest: bytes) -> bool:
    """Whether the unknown name is followed by another name (a specifier), not `::`, `<`, `(`."""
    if re.search(rb"\btypedef\s+$|\busing\s+\w+\s*=\s*$", before):
        return False  # a type: `typedef SUNDIALS_INDEX_TYPE sunindextype;`
    return re.match(rb"[A-Za-z_]\w*[ \t\r\n]+[A-Za-z_]", rest) is not None


def _declares_integer(rest: bytes) -> bool:
    """Whether the unknown type declares a name set to an integer literal (SUNDIALS'
    `constexpr const sunindextype WARP_SIZE = 32` with its generated config header absent)."""
    return re.match(rb"[A-Za-z_]\w*\s+[A-Za-z_]\w*\s*(=|\{)\s*[-+]?\d", rest) is not None


def _recovery_declarations(
    tu: ci.TranslationUnit,
    data_of: dict[str, bytes],
    project: frozenset[str],
    known: dict[str, str],
    watched: frozenset[str],
) -> tuple[dict[str, str], bool]:
    """Declare names the parse did not know, shaped by how they are used.

    Also says whether a re-parse is worth it: only when a kernel launch vanished (an undeclared
    kernel) or a watched API name lost its call; clang keeps the rest of an invalid call's
    arguments in the AST anyway.
    """
    decls: dict[str, str] = {}
    needed: set[str] = set()
    guessed: set[str] = set()  # integer types and attribute macros: worth a re-parse of their own
    classes: set[str] = set()  # other unknown types, declared as classes
    spaces: dict[tuple[str, ...], dict[str, str]] = {}  # unknown namespaces and what is used in them
    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Error:
            continue
        m = UNDECLARED.search(d.spelling)
        if not m:
            continue
        name = m.group(1) or m.group(2) or m.group(3)
        if name in known or name.startswith("__hipscan"):
            continue
        before, rest = _around(d, data_of, project)
        if (
            m.group(1)
            and (q := QUALIFIED_USE.match(rest))
            and q.group(1).startswith(name.encode())
            and not _declared_in_text(name, d, data_of)
        ):
            # `thrust::complex<double> x` with Thrust's headers absent: without a namespace the
            # whole declaration, and a function whose parameters use it, is lost to the parse
            chain = tuple(part.strip().decode() for part in q.group(1).split(b"::")[:-1])
            spaces.setdefault(chain, {}).setdefault(
                q.group(2).decode(), _namespace_member(q.group(2), q.group(3))
            )
            continue
        if name in decls and not (decls[name].startswith("struct") and _declares_integer(rest)):
            continue  # a type guessed as a class becomes an integer where it holds a literal
        guess = _specifier_guess(name) if m.group(2) and SPECIFIER_MACRO.match(name) else None
        if guess is not None and _before_declarator(before, rest):
            decls[name] = f"#define {name} {guess}"
            guessed.add(name)
            continue
        if m.group(2) and (INTEGER_TYPE_NAME.match(name) or _declares_integer(rest)):
            decls[name] = f"typedef {'unsigned ' if name[:1] in 'uU' else ''}int {name};"
            classes.discard(name)
            guessed.add(name)
            continue
        if m.group(2):
            classes.add(name)
            decls[name] = f"struct {name} {{ template <class... A> {name}(A...) {{}} }};"
            continue
        if m.group(3):
            decls[name] = f"template <class... A> struct {name} {{}};"
            continue
        at = _name_at(rest, name)
        after = rest[at + len(name) : at + len(name) + 64].lstrip()
        if after.startswith(b"<<<"):
            needed.add(name)
            decls[name] = (
                f"__global__ void {name}(...);"  # C-variadic: templates cannot be launched from device code
            )
        elif after.startswith(b"(") or after.startswith(b"<"):
            decls[name] = f"template <class... A> __host__ __device__ int {name}(A...);"
        else:
            decls[name] = f"extern int {name};"
            if LIBRARY_CONSTANT.match(name):
                needed.add(name)
        if name in watched:
            needed.add(name)
    declared_spaces = (
        {c.spelling for c in tu.cursor.get_children() if c.kind == ci.CursorKind.NAMESPACE}
        if spaces
        else set()
    )
    for chain, members in spaces.items():
        key = "namespace " + "::".join(chain)
        if key in known:
            continue  # declared for an earlier parse: what is still unknown is no namespace use
        if chain[0] in declared_spaces:
            # the project's own namespace, whose member is unknown for another reason (a type of
            # a missing config header): a stand-in would collide with the real declaration
            continue
        body = " ".join(members.values())
        for part in reversed(chain):
            body = f"namespace {part} {{ {body} }}"
        decls[key] = body
        needed.add(key)
    if guessed and not {n for n in needed if not n.startswith("namespace ")}:
        # a re-parse for these alone keeps clang's own recovery for the other unknown types (an
        # int: `constexpr const sunindextype WARP_SIZE = 32` keeps its value)
        decls = {n: v for n, v in decls.items() if n not in classes}
    return decls, bool(needed or guessed)


def _declared_in_text(name: str, d: ci.Diagnostic, data_of: dict[str, bytes]) -> bool:
    """Whether the file of the diagnostic declares ``name`` itself (`using op = ...;` whose
    target is unknown, `namespace op`, a typedef): then it is no namespace of a missing header."""
    f = d.location.file
    data = data_of.get(f.name, b"") if f is not None else b""
    n = re.escape(name.encode())
    return (
        re.search(
            rb"\busing\s+" + n + rb"\s*=|\bnamespace\s+" + n + rb"\b|\btypedef\b[^;]*\b" + n + rb"\s*;", data
        )
        is not None
    )


def _namespace_member(name: bytes, follower: bytes) -> str:
    """A declaration of ``name`` in an unknown namespace, shaped by what follows its use: a class
    template before `<` (`thrust::complex<double>`), a function before `(`
    (`thrust::raw_pointer_cast(p)`), a class before a declarator (`cub::CachingDeviceAllocator
    alloc`), else a variable (`thrust::device` passed as a policy)."""
    n = name.decode()
    body = f"{{ {n}() = default; template <class... A> __host__ __device__ {n}(A...) {{}} }};"
    if follower == b"<":
        return f"template <class... T> struct {n} {body}"
    if follower == b"(":
        return f"template <class... A> __host__ __device__ int {n}(A...);"
    if follower:
        return f"struct {n} {body}"
    return f"extern int {n};"


def parse_file(job: ParseJob, setup: ParseSetup, watched: frozenset[str], max_size: int) -> FileFacts:
    path = Path(job.path)
    root = Path(job.root)
    rel = relpath(path, root)
    facts = FileFacts(path=rel, mode=setup.mode)
    data, why = read_source(path, max_size)
    if data is None:
        facts.status = why
        return facts
    facts.lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    start = time.perf_counter()
    args = list(setup.args) + list(job.args)
    args += [f"-I{d}" for d in setup.include_dirs]
    args += ["-I" + str(path.parent), "-I" + str(root)]
    index = ci.Index.create(excludeDecls=True)  # skip the PCH's declarations when walking
    data_of = {str(path): data}
    extra_dirs: list[str] = []
    recover: dict[str, str] = {}
    prefix = list(setup.prefix)
    use_learned = [True]
    searched: list[list[str]] = [[]]  # the include folders of the last parse

    def parse(blanked: list[tuple[str, str]], device: bool = False) -> ci.TranslationUnit:
        # Up to three parses: missing project headers are located first (they declare most of
        # what looks undeclared), then names still unknown are declared from how they are used.
        for _attempt in range(5):
            learned = (
                [d for d in _learned_dirs(job, str(path), setup.include_dirs) if d not in extra_dirs]
                if use_learned[0]
                else []
            )
            extra = [f"-I{d}" for d in extra_dirs] + [f"-I{d}" for d in learned]
            extra += prefix
            unsaved = list(blanked) + [(g, text) for g, (_t, text) in job.generated.items()]
            if device:
                extra += ["-include", DEVICE_HEADER]
                unsaved.append((DEVICE_HEADER, DEVICE_PASS))
            if recover:
                extra += ["-include", RECOVER_HEADER]
                unsaved.append((RECOVER_HEADER, "\n".join(recover.values()) + "\n"))
            tu = index.parse(str(path), args=args + extra, unsaved_files=unsaved, options=PARSE_OPTIONS)
            searched[0] = _search_dirs(args + extra)
            if prefix[:1] == ["-include-pch"] and setup.fallback and pch_failed(tu, prefix[1]):
                # the precompiled header went stale or away under this scan: parse its source
                prefix[:] = list(setup.fallback)
                continue
            wrong = _misresolved(tu, extra_dirs + learned, _search_dirs(args), job, setup.include_dirs)
            if wrong:
                # a folder added for one header gave another header than the nearest one: put the
                # nearest one's folder first, and stop using folders learned from other files
                use_learned[0] = False
                front = [want for _got, want in wrong if want]
                front = [d for d in dict.fromkeys(front) if d]
                if front and front != extra_dirs[: len(front)]:
                    extra_dirs[:] = front + [d for d in extra_dirs if d not in front]
                    continue
                if learned:
                    continue
            missing = [
                (m.group(1), d.location.file.name if d.location.file is not None else "")
                for d in tu.diagnostics
                if (m := NOT_FOUND.search(d.spelling))
            ]
            new_dirs = [d for d in _include_dirs_for(missing, job, setup.include_dirs) if d not in extra_dirs]
            if new_dirs:
                extra_dirs.extend(new_dirs)
                _learn(job, missing, setup.include_dirs)
                continue
            more, needed = _recovery_declarations(tu, data_of, job.project_files, recover, watched)
            if not needed:
                break
            recover.update(more)
        return tu

    try:
        blanked = _blanked_headers(job)
        tu = parse(blanked)
        configs = _project_configs(tu, job.project_files)
        if any(name in configs and (name, configs[name]) not in job.skip_headers for name, _text in blanked):
            blanked = []
            tu = parse(blanked)  # a blanked header is walked here after all (other branches): bodies count
            configs = _project_configs(tu, job.project_files)
    except ci.TranslationUnitLoadError:
        facts.status = "error: libclang could not parse the file"
        return facts
    _file_diagnostics(tu, facts, path, root, job.project_files, trusted_dirs(setup, root))

    # project files this TU touches, and where its includes resolved
    files: dict[str, tuple[str, object]] = {}
    include_map: dict[tuple[str, int], str] = {}
    wanted = {str(path): str(path)}  # name as clang spells it -> normalised absolute path
    inputs = {rel}
    facts.configs[rel] = ""
    included_files: set[str] = set()
    for inc in tu.get_includes():
        raw = inc.include.name
        included = os.path.normpath(raw)
        included_files.add(included)
        src = inc.source.name if inc.source is not None else ""
        if included in job.generated:
            template = relpath(Path(job.generated[included][0]), root)
            if template not in facts.templates:
                facts.templates.append(template)
        if included in job.project_files:
            inc_rel = relpath(Path(included), root)
            inputs.add(inc_rel)
            include_map[(src, inc.location.line)] = inc_rel
            facts.configs[inc_rel] = configs[included]
            if (included, configs[included]) not in job.skip_headers:
                wanted[raw] = included
    for raw, norm in sorted(wanted.items()):
        cfile = tu.get_file(raw)
        if cfile is None:
            continue
        if norm == str(path):
            fdata = data
        else:
            hdata, _why = read_source(Path(norm), max_size)
            if hdata is None:
                continue
            fdata = hdata
        files[raw] = (relpath(Path(norm), root), tokenize(tu, cfile, fdata, job.device_macros))
        _guarded_includes(raw, fdata, include_map, included_files, searched[0], job, root)
    facts.files = sorted(v[0] for v in files.values())
    facts.inputs = sorted(inputs)
    # a C file's `#ifdef __cplusplus extern "C" {` is inactive where it is really compiled (by a
    # C compiler), though this parse reads it as C++ (yaksa's back-end headers, C-only includers)
    linkage = {} if compiled_as_c(str(path)) else c_linkage_includes(tu, files, include_map, str(root))
    Extractor(
        tu, facts, files, watched, include_map, job.project_files, str(root), linkage, job.header_index
    ).run()
    device_lines = _device_pass_lines(files)
    if device_lines:
        try:
            device_tu = parse(blanked, device=True)
            _add_device_pass(device_tu, facts, files, device_lines, watched, include_map, job, str(root))
        except Exception:  # noqa: BLE001 - the host-side facts stand on their own; keep them
            pass
    facts.parse_seconds = time.perf_counter() - start
    return facts


def trusted_dirs(setup: ParseSetup, root: Path) -> tuple[str, ...]:
    """Folders whose files' text a report may quote: the scanned tree, the shim, the system and
    toolkit headers, and include folders the user gave (not those a scanned repository named)."""
    return (str(root), *setup.trusted_dirs, *SYSTEM_DIRS)


def _trusted(name: str, dirs: tuple[str, ...]) -> bool:
    name = os.path.normpath(name)
    return any(name == d or name.startswith(d.rstrip("/") + "/") for d in dirs)


def _file_diagnostics(
    tu: ci.TranslationUnit,
    facts: FileFacts,
    path: Path,
    root: Path,
    project: frozenset[str],
    trusted: tuple[str, ...],
) -> None:
    """Parse errors, each counted for the file it is located in: a project header's own errors
    are its own (``header_diagnostics``), everything else is the translation unit's. An error in
    a file outside the trusted folders (``#include "/etc/passwd"``) is summarised, never quoted."""
    own: list[str] = []
    outside = 0
    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Error:
            continue
        f = d.location.file
        name = os.path.normpath(f.name) if f is not None else ""
        if f is None:
            own.append(f"<command line>: {d.spelling}")
        elif not _trusted(name, trusted):
            outside += 1
        elif name != str(path) and name in project:
            rel = relpath(Path(name), root)
            facts.header_error_counts[rel] = facts.header_error_counts.get(rel, 0) + 1
            shown = facts.header_diagnostics.setdefault(rel, [])
            if len(shown) < MAX_DIAGNOSTICS:
                shown.append(f"{rel}:{d.location.line}:{d.location.column}: {d.spelling}")
        else:
            own.append(f"{relpath(Path(name), root)}:{d.location.line}:{d.location.column}: {d.spelling}")
    if outside:
        own.append(f"{outside} error(s) in a file outside the scanned tree (not quoted)")
    facts.error_count = len(own) - (1 if outside else 0) + outside
    facts.diagnostics = own[:MAX_DIAGNOSTICS]
    if facts.error_count:
        facts.status = "parse-errors"


def _guarded_includes(
    raw: str,
    data: bytes,
    include_map: dict[tuple[str, int], str],
    included: set[str],
    searched: list[str],
    job: ParseJob,
    root: Path,
) -> None:
    """Where the includes of a carried file resolved that clang did not record: a header
    already included earlier in the translation unit (`#pragma once`, include guards) is not
    entered again. Without this a header's include facts would depend on which translation
    unit carried it (the order files finish in)."""
    src_dir = os.path.dirname(raw)
    for n, line in enumerate(data.splitlines(), 1):
        if (raw, n) in include_map or b"include" not in line:
            continue
        m = INCLUDE_LINE.match(line)
        if m is None:
            continue
        name = m.group(1).decode("utf-8", "replace")
        for d in (src_dir, *searched):
            full = os.path.normpath(os.path.join(d, name))
            if full in included:
                if full in job.project_files:
                    include_map[(raw, n)] = relpath(Path(full), root)
                break


def _device_pass_lines(files: dict[str, tuple[str, FileTokens]]) -> dict[str, list[tuple[int, int]]]:
    """Per carried file, the line spans of branches only nvcc's device pass compiles and that
    hold code (not just directives or an asm statement the token scan already read)."""
    out: dict[str, list[tuple[int, int]]] = {}
    for rel, ft in files.values():
        for start, end, device in ft.inactive:
            if not device:
                continue
            first, last = ft.line_col(start)[0], ft.line_col(max(start, end - 1))[0]
            i, j = token_index(ft, start), token_index(ft, end)
            if any(t.kind != COMMENT and t.text in ("(", "=", "[") for t in ft.tokens[i:j]):
                out.setdefault(rel, []).append((first, last))
    return out


def _add_device_pass(
    tu: ci.TranslationUnit,
    facts: FileFacts,
    files: dict[str, tuple[str, FileTokens]],
    lines: dict[str, list[tuple[int, int]]],
    watched: frozenset[str],
    include_map: dict[tuple[str, int], str],
    job: ParseJob,
    root: str,
) -> None:
    """Syntax facts of the device-pass-only lines, from a parse with __CUDA_ARCH__ defined:
    a kernel wrapped in `#if __CUDA_ARCH__ >= 200` is read like any other."""
    extra = FileFacts(path=facts.path, mode=facts.mode)
    Extractor(tu, extra, files, watched, include_map, job.project_files, root).run(tokens=False)

    def inside(loc) -> bool:
        return any(a <= loc.line <= b for a, b in lines.get(loc.path, ()))

    for name in DEVICE_FACTS:
        found = [f for f in getattr(extra, name) if inside(f.loc)]
        if not found:
            continue
        if name == "asms":  # the token scan's reading of the same statement gives way
            taken = {f.loc for f in found}
            facts.asms = [a for a in facts.asms if a.loc not in taken]
        getattr(facts, name).extend(found)
    facts.declared |= extra.declared
