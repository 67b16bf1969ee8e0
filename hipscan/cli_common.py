"""Options shared by every command that scans (scan, check, baseline, translate)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import click

from hipscan.cli_guard import UserError
from hipscan.config import MODES, ConfigError, ScanConfig, load_config, parse_version
from hipscan.frontend.discover import scan_root
from hipscan.textsafe import escape_controls

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


STD_PATTERN = re.compile(r"^(?:c|gnu|cuda)(?:\+\+)?\d\w$")


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
            help=(
                "Only these rules (ids, names or categories; comma-separated). Also turns on "
                "the rules that are off by default (HIP531, notes on managed allocations)."
            ),
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
            "--offload-arch",
            "offload_arch",
            multiple=True,
            metavar="GFX",
            help="AMD target in scope, e.g. gfx942 (repeatable or comma-separated; default: "
            "gfx908, gfx90a, gfx942, gfx950). Shared-memory sizes are checked against their LDS.",
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
        click.option(
            "--max-memory",
            type=click.IntRange(min=0),
            default=None,
            metavar="MIB",
            help="Address space one parser process may use; a file needing more is skipped "
            "(default 4096; 0 = no limit).",
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
            raise UserError(f"{p}: no such file or folder")
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
        "max_memory": kw.pop("max_memory", None),
        "std": kw.pop("std", None),
        "use_cache": False if kw.pop("no_cache", False) else None,
        "include_vendored": True if kw.pop("include_vendored", False) else None,
        "offload_arch": _split(kw.pop("offload_arch", ())),
    }
    version = kw.pop("rocm_version", None)
    if overrides["std"] is not None and not STD_PATTERN.match(overrides["std"]):
        raise UserError(f"--std: expected a language standard such as c++17, not {overrides['std']!r}")
    if version:
        try:
            overrides["rocm_version"] = parse_version(version)
        except ConfigError as exc:
            raise UserError(f"--rocm-version: {exc}") from None
    config = load_config(scan_root(paths), overrides)
    if config.compile_commands:
        from hipscan.frontend.flags import read_compile_commands

        # its shape, before the scan starts; and once per scan, what of it was not used
        db = read_compile_commands(Path(config.compile_commands), scan_root(paths))
        if db.dropped:
            shown = ", ".join(db.dropped[:6]) + (
                f" and {len(db.dropped) - 6} more" if len(db.dropped) > 6 else ""
            )
            click.echo(
                f"hipscan: note: compile_commands.json: dropped flags that could load code or read "
                f"files outside the tree: {escape_controls(shown)}",
                err=True,
            )
    for d in config.rules_dirs:
        if not Path(d).is_dir():
            raise UserError(f"rules folder {d}: no such folder")
    return paths, config


def _distance(a: str, b: str) -> int:
    """Edit distance (case-insensitive), for "did you mean"."""
    a, b = a.lower(), b.lower()
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def closest(name: str, known: set[str], n: int = 3) -> list[str]:
    """The known names nearest to ``name`` (at most a third of its letters wrong)."""
    limit = max(1, len(name) // 3)
    ranked = sorted((_distance(name, k), k) for k in known)
    return [k for d, k in ranked if d <= limit][:n]


def check_selection(rules, config: ScanConfig) -> None:
    """Every name in --select/--ignore/severity (command line or config) must select a rule:
    a typo that silently selects nothing would make a gate pass without checking anything."""
    known: set[str] = set()
    for r in rules.rules:
        known.update((r.id, r.name, r.category, *r.tags))
    selections = (
        ("--select/select", config.select),
        ("--ignore/ignore", config.ignore),
        ("severity", config.severity),
    )
    for option, names in selections:
        for name in names:
            if name in known or any(r.selected_by(name) for r in rules.rules):
                continue
            close = closest(name, known)
            hint = f"; did you mean {', '.join(close)}?" if close else " (see 'hipscan rules')"
            raise UserError(f"{option}: {name!r} names no rule, category or tag{hint}")


def _existing_ancestor(path: Path) -> Path:
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_output_file(path: Path | None, option: str) -> None:
    """Fail before the scan when an output file could not be written afterwards."""
    if path is None:
        return
    if path.is_dir():
        raise UserError(f"{option} {path}: is a folder, not a file")
    _check_folder(path.parent, option, path)


def check_output_dir(path: Path | None, option: str) -> None:
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise UserError(f"{option} {path}: exists and is not a folder")
    _check_folder(path, option, path)


def _check_folder(folder: Path, option: str, named: Path) -> None:
    base = _existing_ancestor(folder)
    if not base.is_dir():
        raise UserError(f"{option} {named}: cannot create it: {base} is not a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        raise UserError(f"{option} {named}: cannot write into {base} (permission denied)")


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
