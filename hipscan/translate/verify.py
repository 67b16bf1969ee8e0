"""Compile the emitted HIP files with hipcc for a real AMD target and explain each failure.

Each error is mapped back to the original file and line through the translation's line map. An
error with no finding within two lines of it (nor on the #if/#elif/#else of a preprocessor block
around it: that directive chose the branch that fails, nor within two lines of a project line one
of its notes points at: "candidate function", "previous definition is here" name the project
declaration that collides with HIP's own) is *unexplained*: the scan pointed nowhere
near what the compiler rejects, so a rule is missing. (Whether the file had a blocker finding is
recorded separately: the compile pass rate is reported over files without one.)
The compiler's diagnostics are read with a regular expression: that is its output format, not
source code.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from hipscan.model import Finding
from hipscan.translate.mapping import load_hip_map
from hipscan.translate.result import FileTranslation

_DIAG = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<kind>fatal error|error|warning|note): (?P<msg>.*)$"
)
_INCLUDED = re.compile(r"^In file included from (?P<file>[^:\n]+):(?P<line>\d+):")
_ASM_NOTE = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): note: instantiated into assembly here"
)
NEAR = 2  # lines either side of an error that a finding may sit on and explain it
COMPILED_SUFFIXES = (".hip", ".cu", ".cpp", ".cc", ".cxx", ".c")


@dataclass(slots=True)
class CompileError:
    source: str  # original file (relative to the scanned root), "" when outside the project
    line: int  # original line (0 when unknown)
    column: int
    message: str
    output_file: str  # as the compiler printed it
    output_line: int
    explained_by: list[str] = field(default_factory=list)  # rule ids of findings within +-2 lines
    # project lines (original file, line) the error's notes point at: the declarations involved
    notes: list[tuple[str, int]] = field(default_factory=list)
    environment: bool = False  # a header this machine lacks (a HIP library's, or not CUDA's)

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "output_file": self.output_file,
            "output_line": self.output_line,
            "explained_by": self.explained_by,
            "notes": [list(n) for n in self.notes],
            "environment": self.environment,
        }


@dataclass(slots=True)
class CompileResult:
    source: str
    output: str
    status: str  # pass | fail | timeout | skipped: why
    seconds: float = 0.0
    returncode: int | None = None
    command: list[str] = field(default_factory=list)
    errors: list[CompileError] = field(default_factory=list)  # first errors, mapped back
    has_blocker: bool = False  # a blocker finding in this file or a project header it includes
    unexplained: bool = False
    # HIP library headers the translation asks for that this hipcc install lacks (hipBLAS...):
    # such a failure says nothing about the port, only about the machine
    missing_headers: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "output": self.output,
            "status": self.status,
            "seconds": round(self.seconds, 2),
            "returncode": self.returncode,
            "command": self.command,
            "errors": [e.to_dict() for e in self.errors],
            "has_blocker": self.has_blocker,
            "unexplained": self.unexplained,
            "missing_headers": self.missing_headers,
        }


def find_hipcc() -> str | None:
    return shutil.which("hipcc")


def _header_closure(start: FileTranslation, by_output: dict[str, FileTranslation]) -> list[FileTranslation]:
    seen: dict[str, FileTranslation] = {start.output: start}
    todo = [start]
    while todo:
        cur = todo.pop()
        for inc in cur.project_includes:
            if inc not in seen and inc in by_output:
                seen[inc] = by_output[inc]
                todo.append(by_output[inc])
    return list(seen.values())


def _parse_errors(
    text: str, outdir: Path, by_output: dict[str, FileTranslation], limit: int
) -> list[CompileError]:
    """The first ``limit`` errors, each placed on the innermost project line it concerns."""
    lines = text.splitlines()
    errors: list[CompileError] = []
    stack: list[tuple[str, int]] = []  # "In file included from" lines, outermost first
    last_file, last_chain = "", []  # clang prints a header's include chain only once
    current: CompileError | None = None  # the error the notes that follow belong to
    for k, raw in enumerate(lines):
        inc = _INCLUDED.match(raw)
        if inc:
            stack.append((inc["file"], int(inc["line"])))
            continue
        m = _DIAG.match(raw)
        if not m:
            continue
        includers, stack = stack or (last_chain if m["file"] == last_file else []), []
        last_file, last_chain = m["file"], includers
        if m["kind"] == "note":
            place = _place(m["file"], int(m["line"]), outdir, by_output) if current else None
            if current and place and place not in current.notes and place != (current.source, current.line):
                current.notes.append(place)
            continue
        current = None
        if m["kind"] not in ("error", "fatal error"):
            continue
        file, line, col = m["file"], int(m["line"]), int(m["col"])
        if file.startswith("<"):  # <inline asm>: the note that follows names the statement
            for nxt in lines[k + 1 : k + 8]:
                note = _ASM_NOTE.match(nxt)
                if note:
                    file, line, col = note["file"], int(note["line"]), int(note["col"])
                    break
        err = CompileError("", 0, col, m["msg"], file, line)
        # an error inside a system header is placed on the project line that included it
        for depth, (f, ln) in enumerate([(file, line)] + includers[::-1]):
            out_rel = _relative(f, outdir)
            if out_rel in by_output:
                tr = by_output[out_rel]
                err.source = tr.source
                err.line = tr.line_map.to_original(ln)[0]
                err.column = col if depth == 0 else 0
                break
        if len(errors) >= limit:
            break
        errors.append(err)
        current = err
    return errors


def _place(
    file: str, line: int, outdir: Path, by_output: dict[str, FileTranslation]
) -> tuple[str, int] | None:
    """The original project (file, line) of an emitted-file location, or None outside the project."""
    tr = by_output.get(_relative(file, outdir))
    if tr is None:
        return None
    return tr.source, tr.line_map.to_original(line)[0]


def _relative(path: str, outdir: Path) -> str:
    p = Path(path)
    p = p if p.is_absolute() else outdir / p  # hipcc runs in the output directory
    try:
        return p.resolve().relative_to(outdir.resolve()).as_posix()
    except ValueError:
        return ""


_NOT_FOUND = re.compile(r"'([^']+)' file not found")
# errors about a name the compiler cannot find at all
_MISSING_NAME = re.compile(r"(?:undeclared identifier|unknown type name|no template named) '(\w+)'")


def _directive_rules(
    conditionals: list[tuple[int, int, tuple[int, ...]]], findings: list[Finding], line: int
) -> set[str]:
    """Rules of the findings on the #if/#elif/#else lines of the blocks around ``line``."""
    lines = {ln for first, last, ls in conditionals if first <= line <= last for ln in ls}
    return {f.rule for f in findings if f.line in lines} if lines else set()


def _gating_rules(tr: FileTranslation, line: int, findings: dict[str, list[Finding]]) -> set[str]:
    return _directive_rules(tr.conditionals, findings.get(tr.source, []), line)


def _removed_by_directive(
    name: str,
    unit: FileTranslation,
    by_output: dict[str, FileTranslation],
    findings: dict[str, list[Finding]],
) -> set[str]:
    """A name the compiler cannot find, spelled in the project only inside #if blocks (or headers
    included from them) whose directive carries a finding: `#if CUDART_VERSION >= 2020` around
    the header that defines it. The directive's finding explains the error."""
    carried: dict[str, frozenset[str]] = {unit.output: frozenset()}
    todo = [unit]
    while todo:
        tr = todo.pop()
        for line, header in tr.include_lines:
            if header not in by_output:
                continue
            rules = carried[tr.output] | _gating_rules(tr, line, findings)
            if header not in carried or not rules >= carried[header]:
                carried[header] = frozenset(rules | carried.get(header, frozenset()))
                todo.append(by_output[header])
    explained: set[str] = set()
    for out, rules in carried.items():
        tr = by_output[out]
        names = {name} | {cuda for cuda, hip in tr.renamed.items() if hip == name}
        for n in names:
            for line in tr.ident_lines.get(n, []):
                explained |= rules | _gating_rules(tr, line, findings)
    return explained


def _explaining(
    err: CompileError,
    findings: list[Finding],
    conditionals: list[tuple[int, int, tuple[int, ...]]],
    all_findings: dict[str, list[Finding]] | None = None,
) -> list[str]:
    """Rules of the findings within NEAR lines of the error, or else on a directive of an
    enclosing #if block (`#if CUDART_VERSION >= 2020` choosing the branch that fails), or else
    within NEAR lines of a project declaration one of its notes names."""
    near: set[str] = set()
    if err.line:
        near = {f.rule for f in findings if abs(f.line - err.line) <= NEAR}
        if not near:
            near = _directive_rules(conditionals, findings, err.line)
    if not near:
        for source, line in err.notes:
            near |= {f.rule for f in (all_findings or {}).get(source, []) if abs(f.line - line) <= NEAR}
    return sorted(near)


def _explain_cascades(errors: list[CompileError], by_source: dict[str, FileTranslation]) -> None:
    """An error on a line using a name first spelled on the line of an earlier, explained error
    (`typedef ... hiprandStateSobol64_t ... Sobol_sz;` failed, then every use of `Sobol_sz`
    fails) follows from that error: it gets the same explanation."""
    for k, err in enumerate(errors):
        tr = by_source.get(err.source)
        if err.explained_by or not err.line or tr is None:
            continue
        for prev in errors[:k]:
            if prev.explained_by and prev.source == err.source and 0 < prev.line < err.line:
                if any(ls[0] == prev.line and err.line in ls for ls in tr.ident_lines.values()):
                    err.explained_by = list(prev.explained_by)
                    break


def _explain(
    result: CompileResult,
    findings: dict[str, list[Finding]],
    involved: list[str],
    emitted_headers: frozenset[str] = frozenset(),
    conditionals: dict[str, list[tuple[int, int, tuple[int, ...]]]] | None = None,
    unit: FileTranslation | None = None,
    by_output: dict[str, FileTranslation] | None = None,
) -> None:
    hipmap = load_hip_map(False)
    missing: set[str] = set()
    for err in result.errors:
        m = _NOT_FOUND.search(err.message)
        # a HIP header this compiler lacks (hipBLAS, rocThrust's thrust/...), or a dependency that
        # is not CUDA's (GL/gl.h): the machine lacks it, the translation is not at fault
        if m and (
            m[1] in emitted_headers
            or m[1].startswith(hipmap.rocm_provided)
            or not (hipmap.cuda_headers and hipmap.cuda_headers.match(m[1]))
        ):
            err.environment = True
            missing.add(m[1])
            continue
        blocks = (conditionals or {}).get(err.source, [])
        err.explained_by = _explaining(err, findings.get(err.source, []), blocks, findings)
        name = _MISSING_NAME.search(err.message)
        if not err.explained_by and name and unit is not None and by_output:
            err.explained_by = sorted(_removed_by_directive(name[1], unit, by_output, findings))
    if result.errors and all(e.environment for e in result.errors):
        result.missing_headers = sorted(missing)
    if by_output:
        _explain_cascades(result.errors, {tr.source: tr for tr in by_output.values()})
    result.has_blocker = any(f.severity == "blocker" for src in involved for f in findings.get(src, []))
    if result.status in ("fail", "timeout"):
        if result.missing_headers:
            return
        result.unexplained = any(not e.explained_by and not e.environment for e in result.errors)


def _compile(
    tr: FileTranslation,
    outdir: Path,
    hipcc: str,
    include_dirs: list[str],
    flags: list[str],
    offload_arch: str,
    timeout: float,
    extra_flags: tuple[str, ...],
    by_output: dict[str, FileTranslation],
    max_errors: int,
) -> CompileResult:
    outdir = outdir.resolve()
    src = outdir / tr.output
    with tempfile.TemporaryDirectory(prefix="hipscan-verify-") as tmp:
        obj = Path(tmp) / (Path(tr.output).name + ".o")
        cmd = [
            hipcc,
            # C sources stay C, as in the build, which defines the platform macro for HIP's C API
            *(("-D__HIP_PLATFORM_AMD__",) if tr.output.endswith(".c") else ("-std=c++17",)),
            f"--offload-arch={offload_arch}",
            "-c",
            str(src),
            "-o",
            str(obj),
        ]
        cmd += ["-I" + str(outdir / d) for d in include_dirs]
        cmd += flags + list(extra_flags)
        # hipcc leaves an empty <stem>-XXXXXX folder in TMPDIR per compile: keep them in ours
        env = dict(os.environ, HIP_PLATFORM="amd", TMPDIR=tmp)
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=outdir)
        except subprocess.TimeoutExpired:
            return CompileResult(tr.source, tr.output, "timeout", timeout, None, cmd)
        seconds = time.perf_counter() - t0
    status = "pass" if proc.returncode == 0 else "fail"
    result = CompileResult(tr.source, tr.output, status, seconds, proc.returncode, cmd)
    if status == "fail":
        output = proc.stderr + proc.stdout
        result.errors = _parse_errors(output, outdir, by_output, max_errors)
        if not result.errors:  # a driver error with no source location: unexplained, and shown
            first = next((ln for ln in output.splitlines() if ln.strip()), f"exit status {proc.returncode}")
            result.errors = [CompileError("", 0, 0, first.strip(), "", 0)]
    return result


def verify_outputs(
    results: list[FileTranslation],
    outdir: Path,
    findings: list[Finding] | None = None,
    *,
    offload_arch: str = "gfx90a",
    timeout: float = 180.0,
    jobs: int = 0,
    hipcc: str | None = None,
    extra_flags: tuple[str, ...] = (),
    max_errors: int = 5,
    only_cuda: bool = True,
) -> list[CompileResult]:
    """Compile every emitted translation unit (headers are checked through the files including
    them); returns one result per translated source file, in order."""
    hipcc = hipcc or find_hipcc()
    by_output = {tr.output: tr for tr in results}
    by_source: dict[str, list[Finding]] = {}
    for f in findings or []:
        by_source.setdefault(f.path, []).append(f)
    todo: list[tuple[FileTranslation, list[str], list[str], list[str]]] = []
    out: dict[str, CompileResult] = {}
    for tr in results:
        if tr.is_header or not tr.output.endswith(COMPILED_SUFFIXES):
            continue
        if hipcc is None:
            out[tr.output] = CompileResult(tr.source, tr.output, "skipped: hipcc not found")
        elif tr.status not in ("written", "unchanged"):
            out[tr.output] = CompileResult(tr.source, tr.output, f"skipped: {tr.status}")
        elif only_cuda and not tr.has_cuda:
            out[tr.output] = CompileResult(tr.source, tr.output, "skipped: no CUDA code")
        else:
            closure = _header_closure(tr, by_output)
            dirs: list[str] = [str(Path(tr.output).parent.as_posix())]
            flags: list[str] = []  # what the headers it reads need (-fopenmp for omp.h)
            for member in closure:
                dirs += [d for d in member.include_dirs if d not in dirs]
                flags += [f for f in member.compile_flags if f not in flags]
            todo.append((tr, dirs, flags, [m.source for m in closure]))
    blocks = {tr.source: tr.conditionals for tr in results}
    emitted = frozenset(
        h for hm in (load_hip_map(False), load_hip_map(True)) for h in hm.headers.values() if h
    )
    workers = jobs if jobs > 0 else (os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            tr.output: (
                pool.submit(
                    _compile,
                    tr,
                    outdir,
                    hipcc,
                    dirs,
                    flags,
                    offload_arch,
                    timeout,
                    extra_flags,
                    by_output,
                    max_errors,
                ),
                involved,
            )
            for tr, dirs, flags, involved in todo
        }
        for key, (future, involved) in futures.items():
            result = future.result()
            _explain(result, by_source, involved, emitted, blocks, by_output[key], by_output)
            out[key] = result
    return [out[tr.output] for tr in results if tr.output in out]
