"""Command line: thin wrappers that parse options, call the library and choose exit codes.

Exit codes (every command, see ``cli_guard``): 0 the scan ran (and the gate, if any, passed);
1 findings at or above --fail-on (or a failed gate); 2 usage, configuration or input error;
3 internal error; 130 interrupted.
"""

from __future__ import annotations

from pathlib import Path

import click

from hipscan import __version__
from hipscan.cli_common import (
    EXIT_FINDINGS,
    EXIT_USAGE,
    build_config,
    check_output_dir,
    check_output_file,
    check_selection,
    progress_printer,
    scan_options,
    want_progress,
)
from hipscan.cli_guard import GuardedGroup
from hipscan.model import SEVERITIES, severity_rank
from hipscan.rules import RuleFileError, load_rules
from hipscan.textsafe import escape_controls

OUTPUT_FORMATS = ("text", "json", "sarif", "markdown", "html")


extra_rules_option = click.option(
    "--rules",
    "rules_dirs",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Extra folder of rule files.",
)


def _load_rules(dirs=(), cache_dir: Path | None = None):
    try:
        return load_rules([Path(d) for d in dirs], cache_dir=cache_dir)
    except RuleFileError as exc:
        click.echo(f"hipscan: error: {exc}", err=True)
        raise SystemExit(EXIT_USAGE) from None


@click.group(
    cls=GuardedGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="hipscan")
@click.option("--debug", is_flag=True, help="Print the traceback of an internal error (exit code 3).")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """hipscan: find what breaks before a CUDA code base is ported to AMD ROCm/HIP.

    \b
    hipscan scan PATH          findings, HTML readiness report and effort estimate
    hipscan check PATH         CI gate: exit 1 on new or severe findings
    hipscan translate PATH -o DIR   HIP starting files with markers
    hipscan rules / explain RULE    the rule catalogue and each rule's documentation

    Exit codes: 0 ran (gate passed), 1 gate failed, 2 usage/configuration/input error,
    3 internal error, 130 interrupted.
    """
    ctx.obj = {"debug": debug}


@main.command()
@scan_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="What to print.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the output to FILE (atomically) instead of stdout.",
)
@click.option(
    "--fail-on",
    type=click.Choice(("none",) + SEVERITIES),
    default="none",
    show_default=True,
    help="Exit 1 when a finding has at least this severity.",
)
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for report.html and report.json [default: hipscan-report/ for text output].",
)
@click.option("--no-report", is_flag=True, help="Do not write the report folder.")
@click.option(
    "--emit-hip",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="Also write translated HIP files into DIR (outside the scanned tree).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show progress on stderr [default: when stderr is a terminal].",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary (text format).")
def scan(
    fmt: str,
    output: Path | None,
    fail_on: str,
    report_dir: Path | None,
    no_report: bool,
    emit_hip: Path | None,
    progress: bool | None,
    quiet: bool,
    **kw,
) -> None:
    """Scan CUDA sources under PATHS and report what will not port cleanly to ROCm.

    Prints findings like a compiler (path:line:col: RULE [severity] message) and a summary, and
    writes an HTML readiness report plus JSON into the report folder. Files that cannot be read
    or parsed get a one-line message on stderr; the scan goes on with the rest.
    """
    from hipscan.api import missing_headers
    from hipscan.api import scan as run_scan
    from hipscan.report import ReportContext, render, write_atomic

    paths, config = build_config(kw)
    check_output_file(output, "-o")
    if not no_report and (report_dir is not None or fmt == "text"):
        folder = report_dir or Path("hipscan-report")
        check_output_dir(folder, "--report-dir")
        config = _exclude_report_folder(config, paths, folder)
    check_output_dir(emit_hip, "--emit-hip")
    rules = _load_rules(config.rules_dirs, config.cache_path() if config.use_cache else None)
    check_selection(rules, config)
    result = run_scan(paths, config, rules, progress=progress_printer(want_progress(progress)))
    for f in result.files:
        if f.status not in ("ok", "parse-errors"):
            click.echo(escape_controls(f"{f.path}: {f.status}"), err=True)
    if not result.files:
        click.echo(
            "hipscan: warning: no CUDA sources found (.cu/.cuh, or C/C++ files that use CUDA)", err=True
        )
    if result.auto_defines:
        names = ", ".join(result.auto_defines)
        click.echo(
            f"hipscan: note: scanned with {names} defined: the project's switch for its CUDA code, "
            "never defined in its sources (-U NAME scans without it)",
            err=True,
        )
    if result.guard_defines:
        first, names = next(iter(sorted(result.guard_defines.items())))
        click.echo(
            f"hipscan: note: {len(result.guard_defines)} file(s) are wholly inside a feature switch the "
            f"sources never define (e.g. {first}: {', '.join(names)}); each was scanned with its switches "
            "defined (-U NAME scans without one)",
            err=True,
        )
    if result.config_stand_ins:
        first = result.config_stand_ins[0]
        click.echo(
            f"hipscan: note: {len(result.config_stand_ins)} config header(s) the build generates were "
            f"read from their templates (e.g. {first}) with every option off; pass -I DIR for a "
            "configured build's headers",
            err=True,
        )
    missing = missing_headers(result)
    if missing:
        header, where = missing[0]
        click.echo(
            f"hipscan: note: {len(missing)} file(s) include headers that were not found (e.g. {header} "
            f"from {where}); their declarations are guessed, so findings in code using them may be "
            "missing: pass -I DIR or -p BUILD_DIR",
            err=True,
        )
    translations = None
    if emit_hip is not None:
        translations = _emit_hip(result, emit_hip, config)
    ctx = ReportContext.for_result(result, rules=rules, translations=translations)
    if fmt == "text" and quiet:
        from hipscan.report.text import render_summary

        text = render_summary(result, ctx)
    else:
        text = render(fmt, result, ctx)
    if output is not None:
        write_atomic(output, text)
    else:
        click.echo(text, nl=not text.endswith("\n"))
    if not no_report and (report_dir is not None or fmt == "text"):
        folder = report_dir or Path("hipscan-report")
        write_atomic(folder / "report.html", render("html", result, ctx))
        write_atomic(folder / "report.json", render("json", result, ctx))
        click.echo(f"report: {folder / 'report.html'}", err=output is None and fmt != "text")
    if fail_on != "none":
        worst = max((severity_rank(f.severity) for f in result.findings), default=-1)
        if worst >= severity_rank(fail_on):
            raise SystemExit(EXIT_FINDINGS)


def _exclude_report_folder(config, paths: list[Path], folder: Path):
    """The report folder is output, never a source: excluded when it lies inside the tree."""
    from dataclasses import replace

    from hipscan.frontend.discover import scan_root

    try:
        rel = folder.resolve().relative_to(scan_root(paths))
    except ValueError:
        return config
    if not rel.parts:
        return config
    return replace(config, extra_exclude=tuple(config.extra_exclude) + (rel.as_posix(),))


def _emit_hip(result, outdir: Path, config):
    """HIP stubs for every parsed source and the project headers they include."""
    from hipscan.api import scanned_sources
    from hipscan.cli_translate import emit_hip
    from hipscan.translate import TranslateError

    try:
        translations, _ = emit_hip(
            result.root, scanned_sources(result), result.findings, outdir, config=config
        )
    except TranslateError as exc:
        raise click.UsageError(f"--emit-hip: {exc}") from None
    click.echo(f"HIP stubs: {outdir} ({len(translations)} files)", err=True)
    return translations


@main.command("rules")
@click.option("--category", default=None, help="Only rules of this category.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@extra_rules_option
def rules_cmd(category: str | None, fmt: str, rules_dirs: tuple[Path, ...]) -> None:
    """List the rules: id, category, severity, confidence and title."""
    import json

    ruleset = _load_rules(rules_dirs)
    rows = [r for r in ruleset.rules if category is None or r.category == category]
    if fmt == "json":
        click.echo(
            json.dumps(
                [
                    {
                        "id": r.id,
                        "name": r.name,
                        "category": r.category,
                        "severity": r.severity,
                        "confidence": r.confidence,
                        "effort": r.effort,
                        "title": r.title,
                    }
                    for r in rows
                ],
                indent=2,
            )
        )
        return
    for r in rows:
        click.echo(f"{r.id:<8} {r.category:<28} {r.severity:<8} {r.confidence:<7} {r.name}: {r.title}")
    click.echo(f"{len(rows)} rules", err=True)


@main.command()
@click.argument("rule")
@extra_rules_option
def explain(rule: str, rules_dirs: tuple[Path, ...]) -> None:
    """Show a rule's documentation: what it finds, why it breaks on ROCm, and the fix."""
    ruleset = _load_rules(rules_dirs)
    found = ruleset.get(rule)
    if found is None:
        click.echo(f"hipscan: error: no rule {rule!r} (see 'hipscan rules')", err=True)
        raise SystemExit(EXIT_USAGE)
    click.echo(found.doc_markdown())


def _register_optional() -> None:
    """Commands that live in their own modules."""
    from hipscan.cli_gate import baseline, check
    from hipscan.cli_translate import translate_command

    main.add_command(check)
    main.add_command(baseline)
    main.add_command(translate_command)


_register_optional()
