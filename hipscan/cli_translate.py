"""``hipscan translate``: HIP stubs for a CUDA tree, and the function ``scan --emit-hip`` calls."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hipscan.translate.options import HEADER_SUFFIXES, SOURCE_SUFFIXES, TranslateOptions
from hipscan.translate.outputs import TranslateError

if TYPE_CHECKING:  # the translator (libclang) loads when a translation runs, not at start-up
    from hipscan.model import Finding
    from hipscan.translate import FileTranslation
    from hipscan.translate.verify import CompileResult

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv"})


def source_files(root: Path) -> list[Path]:
    """C, C++ and CUDA sources and headers under ``root`` (VCS and virtualenv folders skipped)."""
    suffixes = SOURCE_SUFFIXES + HEADER_SUFFIXES
    if root.is_file():
        return [root]
    found = []
    for path in sorted(root.rglob("*")):
        if any(part in SKIP_DIRS for part in path.relative_to(root).parts):
            continue
        if path.is_file() and path.name.endswith(suffixes):
            found.append(path)
    return found


def _scan_findings(path: Path, config: object) -> tuple[list[Finding], list[Path] | None]:
    """Findings of the rule engine for PATH alone (one file costs one parse, not its folder's)."""
    from hipscan.api import scan, scanned_sources

    result = scan([path], config)
    return list(result.findings), scanned_sources(result)


def parse_options(func: Callable) -> Callable:
    """The scan options that change a translation: how files parse and which ROCm is targeted."""
    from hipscan.config import MODES

    decorators = [
        click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Extra include folder."),
        click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Macro definition."),
        click.option("-U", "undefines", multiple=True, metavar="NAME", help="Keep NAME undefined."),
        click.option(
            "-p",
            "compile_commands",
            type=click.Path(exists=True, path_type=Path),
            help="Folder with compile_commands.json: per-file flags.",
        ),
        click.option("--mode", type=click.Choice(MODES), default=None, help="Parse mode (default shim)."),
        click.option(
            "--cuda-path", type=click.Path(path_type=Path), default=None, help="For --mode toolkit."
        ),
        click.option("--std", default=None, help="C++ standard for the parse (default c++17)."),
        click.option(
            "--rocm-version",
            default=None,
            metavar="X.Y",
            help="Target ROCm release: names HIP gained later stay as written, marked (default 6.4).",
        ),
    ]
    for deco in reversed(decorators):
        func = deco(func)
    return func


def parse_config(root: Path, kw: dict) -> object:
    """A ScanConfig from the repository's config file and the options of :func:`parse_options`."""
    from hipscan.config import ConfigError, load_config, parse_version

    overrides = {
        "include_dirs": tuple(str(Path(d).resolve()) for d in kw.pop("include_dirs", ())),
        "defines": tuple(kw.pop("defines", ())),
        "undefines": tuple(kw.pop("undefines", ())),
        "compile_commands": str(kw.pop("compile_commands", None) or ""),
        "mode": kw.pop("mode", None),
        "cuda_path": str(kw.pop("cuda_path", None) or ""),
        "std": kw.pop("std", None),
    }
    version = kw.pop("rocm_version", None)
    try:
        if version:
            overrides["rocm_version"] = parse_version(version)
        return load_config(root, overrides)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None


def translate_options(func: Callable) -> Callable:
    """The options ``translate`` and ``scan --emit-hip`` share."""
    decorators = [
        click.option(
            "--hip-ext",
            default=".hip",
            show_default=True,
            help="Extension for translated .cu files.",
        ),
        click.option(
            "--roc",
            is_flag=True,
            help="Use roc* library names (rocBLAS, rocRAND...) where they exist.",
        ),
        click.option(
            "--launch-syntax",
            type=click.Choice(["chevron", "hip"]),
            default="chevron",
            show_default=True,
            help="Keep kernel<<<...>>> or emit hipLaunchKernelGGL(...).",
        ),
        click.option("--force", is_flag=True, help="Replace outputs edited since hipscan wrote them."),
        click.option("--verify", is_flag=True, help="Compile every emitted file with hipcc."),
        click.option("--offload-arch", default="gfx90a", show_default=True, help="AMD target for --verify."),
        click.option(
            "--verify-timeout",
            default=180.0,
            show_default=True,
            help="Seconds per file for --verify.",
        ),
    ]
    for deco in reversed(decorators):
        func = deco(func)
    return func


def emit_hip(
    root: Path,
    files: list[Path],
    findings: list[Finding],
    outdir: Path,
    *,
    hip_ext: str = ".hip",
    roc: bool = False,
    launch_syntax: str = "chevron",
    force: bool = False,
    verify: bool = False,
    offload_arch: str = "gfx90a",
    verify_timeout: float = 180.0,
    jobs: int = 0,
    config: object | None = None,
) -> tuple[list[FileTranslation], list[CompileResult]]:
    """Translate (and optionally compile-check) a scanned tree; what ``scan --emit-hip`` calls.

    Raises :class:`TranslateError` for an unusable output directory."""
    from hipscan.translate import translate_tree
    from hipscan.translate.verify import verify_outputs

    options = TranslateOptions(
        hip_ext=hip_ext, roc=roc, launch_syntax=launch_syntax, force=force, config=config
    )
    results = translate_tree(root, files, findings, outdir, options)
    compiled: list[CompileResult] = []
    if verify:
        compiled = verify_outputs(
            results, outdir, findings, offload_arch=offload_arch, timeout=verify_timeout, jobs=jobs
        )
    return results, compiled


def summarize(results: list[FileTranslation], compiled: list[CompileResult], outdir: Path) -> list[str]:
    written = sum(r.status == "written" for r in results)
    unchanged = sum(r.status == "unchanged" for r in results)
    skipped = [r for r in results if r.status.startswith(("skipped", "error"))]
    lines = [
        f"translated {len(results)} file(s) into {outdir}: {written} written, "
        f"{unchanged} unchanged, {len(skipped)} skipped",
        f"identifiers converted: {sum(r.converted_count for r in results)}; "
        f"left unconverted: {sum(len(r.unconverted) for r in results)}; "
        f"markers: {sum(len(r.markers) for r in results)}",
    ]
    lines += [f"  {r.source}: {r.status}" for r in skipped]
    if compiled:
        ran = [c for c in compiled if not c.status.startswith("skipped")]
        passed = sum(c.ok for c in ran)
        lines.append(f"hipcc: {passed}/{len(ran)} compiled")
        for c in ran:
            if c.unexplained:
                first = c.errors[0] if c.errors else None
                where = f"{first.source}:{first.line}: {first.message}" if first else c.status
                lines.append(f"  unexplained failure {c.source}: {where}")
        if not ran and compiled:
            lines.append(f"  {compiled[0].status}")
    return lines


@click.command("translate")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "-o",
    "--output",
    "outdir",
    required=True,
    type=click.Path(path_type=Path),
    help="Output directory.",
)
@translate_options
@parse_options
@click.option("--no-scan", is_flag=True, help="Translate without running the rules (no finding markers).")
@click.option("--jobs", default=0, help="Parallel hipcc runs for --verify (0 = cores).")
@click.option("--json", "json_out", type=click.Path(path_type=Path), help="Write the per-file report here.")
def translate_command(
    path: Path,
    outdir: Path,
    hip_ext: str,
    roc: bool,
    launch_syntax: str,
    force: bool,
    verify: bool,
    offload_arch: str,
    verify_timeout: float,
    no_scan: bool,
    jobs: int,
    json_out: Path | None,
    **kw,
) -> None:
    """Mirror the CUDA tree PATH into OUTPUT as HIP: renamed APIs, headers and HIPSCAN markers."""
    root = path.resolve() if path.is_dir() else path.resolve().parent
    from hipscan.cli_common import check_output_dir

    check_output_dir(outdir, "-o")  # before the scan: an unwritable output is a usage error (2)
    config = parse_config(root, kw)
    findings: list[Finding] = []
    files: list[Path] | None = None
    if not no_scan:
        findings, files = _scan_findings(path.resolve(), config)
    if files is None:
        files = source_files(path.resolve())
    from hipscan.translate.verify import find_hipcc

    if verify and find_hipcc() is None:
        click.echo("hipscan: --verify needs hipcc on PATH; translating without the compile check", err=True)
    try:
        results, compiled = emit_hip(
            root,
            files,
            findings,
            outdir,
            hip_ext=hip_ext,
            roc=roc,
            launch_syntax=launch_syntax,
            force=force,
            verify=verify,
            offload_arch=offload_arch,
            verify_timeout=verify_timeout,
            jobs=jobs,
            config=config,
        )
    except (TranslateError, ValueError) as exc:
        click.echo(f"hipscan: {exc}", err=True)
        sys.exit(2)
    for line in summarize(results, compiled, outdir):
        click.echo(line)
    if json_out is not None:
        doc = {
            "tool": "hipscan",
            "files": [r.to_dict() for r in results],
            "compile": [c.to_dict() for c in compiled],
        }
        json_out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    if any(c.unexplained for c in compiled):
        sys.exit(1)
