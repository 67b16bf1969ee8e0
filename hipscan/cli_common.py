"""Options shared by every command that scans (scan, check, baseline, translate)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from hipscan.config import MODES, ConfigError, ScanConfig, load_config, parse_version
from hipscan.frontend.discover import scan_root

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out += [p.strip() for p in v.split(",") if p.strip()]
    return tuple(out)


def scan_options(f: Callable) -> Callable:
    """Attach the options that choose files, flags, rules and parallelism."""
    options = [
        click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path)),
        click.option(
            "--select",
            multiple=True,
            metavar="RULES",
            help="Only these rules (ids, names or categories; comma-separated).",
        ),
        click.option(
            "--ignore",
            multiple=True,
            metavar="RULES",
            help="Skip these rules (ids, names or categories).",
        ),
        click.option(
            "-p",
            "compile_commands",
            type=click.Path(exists=True, path_type=Path),
            help="Folder with compile_commands.json: per-file flags.",
        ),
        click.option(
            "-I",
            "include_dirs",
            multiple=True,
            metavar="DIR",
            help="Extra include folder (repeatable).",
        ),
        click.option(
            "-D",
            "defines",
            multiple=True,
            metavar="NAME[=VALUE]",
            help="Extra macro definition (repeatable).",
        ),
        click.option(
            "-U",
            "undefines",
            multiple=True,
            metavar="NAME",
            help="Keep NAME undefined, e.g. a project switch for its CUDA code that the scan would "
            "otherwise turn on (repeatable).",
        ),
        click.option(
            "--mode",
            type=click.Choice(MODES),
            default=None,
            help="shim: no CUDA toolkit needed (default); toolkit: real CUDA headers; "
            "auto: toolkit when one is found.",
        ),
        click.option(
            "--cuda-path",
            type=click.Path(path_type=Path),
            default=None,
            help="CUDA toolkit for --mode toolkit (default: CUDA_HOME, CUDA_PATH, /usr/local/cuda).",
        ),
        click.option(
            "--exclude",
            multiple=True,
            metavar="GLOB",
            help="Skip files/folders matching GLOB (repeatable).",
        ),
        click.option(
            "--rules",
            "rules_dirs",
            multiple=True,
            type=click.Path(exists=True, file_okay=False, path_type=Path),
            help="Extra folder of rule files (repeatable).",
        ),
        click.option(
            "--rocm-version",
            default=None,
            metavar="X.Y",
            help="Target ROCm release: APIs HIP gained later are findings (default 6.4).",
        ),
        click.option(
            "-j",
            "--jobs",
            type=int,
            default=None,
            help="Parallel parser processes (default: number of cores).",
        ),
        click.option(
            "--timeout",
            type=float,
            default=None,
            help="Seconds allowed to parse one file (default 60).",
        ),
        click.option(
            "--max-file-size",
            type=int,
            default=None,
            metavar="BYTES",
            help="Skip files larger than this (default 2000000).",
        ),
        click.option("--std", default=None, help="C++ standard for the parse (default c++17)."),
        click.option(
            "--include-vendored",
            is_flag=True,
            help="Scan bundled third-party trees (third_party/, submodules, copies of CUB, Thrust...) "
            "as project code instead of reporting each once.",
        ),
        click.option(
            "--no-cache",
            is_flag=True,
            help="Parse every file again instead of reusing unchanged results.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def build_config(kw: dict) -> tuple[list[Path], ScanConfig]:
    """Turn scan options into a ScanConfig, reading the repository's own config file first."""
    paths: list[Path] = list(kw.pop("paths"))
    for p in paths:
        if not p.exists() and not p.is_symlink():
            raise click.BadParameter(f"{p}: no such file or directory", param_hint="PATHS")
    overrides = {
        "select": _split(kw.pop("select", ())),
        "ignore": _split(kw.pop("ignore", ())),
        "compile_commands": str(kw.pop("compile_commands") or ""),
        "include_dirs": tuple(str(Path(d).resolve()) for d in kw.pop("include_dirs", ())),
        "defines": tuple(kw.pop("defines", ())),
        "undefines": tuple(kw.pop("undefines", ())),
        "mode": kw.pop("mode", None),
        "cuda_path": str(kw.pop("cuda_path") or ""),
        "extra_exclude": tuple(kw.pop("exclude", ())),
        "rules_dirs": tuple(str(d) for d in kw.pop("rules_dirs", ())),
        "jobs": kw.pop("jobs", None),
        "timeout": kw.pop("timeout", None),
        "max_file_size": kw.pop("max_file_size", None),
        "std": kw.pop("std", None),
        "use_cache": False if kw.pop("no_cache", False) else None,
        "include_vendored": True if kw.pop("include_vendored", False) else None,
    }
    version = kw.pop("rocm_version", None)
    try:
        if version:
            overrides["rocm_version"] = parse_version(version)
        config = load_config(scan_root(paths), overrides)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    return paths, config


def progress_printer(enabled: bool) -> Callable[[int, int, str], None] | None:
    """A one-line progress counter on stderr, only when it is a terminal (or asked for)."""
    if not enabled:
        return None
    last = [0.0]

    def show(done: int, total: int, path: str) -> None:
        import time

        now = time.monotonic()
        if done < total and now - last[0] < 0.2:
            return
        last[0] = now
        click.echo(f"\r[{done}/{total}] {path[-60:]:<60}", nl=done >= total, err=True)

    return show


def want_progress(flag: bool | None) -> bool:
    return sys.stderr.isatty() if flag is None else flag
