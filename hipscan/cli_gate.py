"""``hipscan check`` (the CI gate) and ``hipscan baseline`` (accept today's findings).

Exit codes: 0 the gate passed, 1 it failed (the reasons are printed), 2 a usage or
configuration error (bad option, unreadable baseline or profile, unknown git ref), 3 an internal
error, 130 interrupted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hipscan import __version__
from hipscan.baseline import load_baseline, render_baseline
from hipscan.cli_common import check_output_file
from hipscan.gate import GateOptions, changed_files, evaluate, explain
from hipscan.model import CONFIDENCES, SEVERITIES, ScanResult

if TYPE_CHECKING:  # the report context pulls in the effort model and networkx: loaded on use
    from hipscan.report import ReportContext

# hipscan.report.FORMATS, spelled here so that defining the commands imports no report code
FORMATS = ("text", "json", "sarif", "markdown", "html")


def _scan(kw: dict) -> tuple[ScanResult, object, Path]:
    """Scan the PATHS of the shared scan options with the repository's configuration."""
    from hipscan.api import scan
    from hipscan.cli_common import build_config, check_selection
    from hipscan.frontend.discover import scan_root

    paths, config = build_config(kw)
    rules = _rules(config)
    check_selection(rules, config)
    return scan(paths, config, rules), rules, scan_root(paths)


def _root(kw: dict) -> Path:
    from hipscan.frontend.discover import scan_root

    return scan_root(list(kw["paths"]))


def _rules(config) -> object:
    from hipscan.rules import load_rules

    cache_dir = config.cache_path() if config.use_cache else None
    return load_rules([Path(d) for d in config.rules_dirs], cache_dir=cache_dir)


def _guard(body: Callable[[], int]) -> None:
    """Run a command body and exit with its code; input errors (2), crashes (3) and Ctrl-C (130)
    are mapped by the command group (``cli_guard``), so a crash never reads as a gate verdict."""
    sys.exit(body())


def _with_scan_options(f):
    from hipscan.cli_common import scan_options

    return scan_options(f)


@click.command("check")
@_with_scan_options
@click.option(
    "--fail-on",
    type=click.Choice(["none", *SEVERITIES]),
    default="high",
    show_default=True,
    help="Fail on a finding at or above this severity.",
)
@click.option(
    "--min-confidence",
    type=click.Choice(CONFIDENCES),
    default="medium",
    show_default=True,
    help="Ignore findings of lower confidence.",
)
@click.option(
    "--min-score",
    type=click.IntRange(0, 100),
    default=None,
    help="Fail when the readiness score is below this.",
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Fail only on findings not in this baseline.",
)
@click.option(
    "--diff-base",
    default=None,
    metavar="REF",
    help="Only check files changed since git REF (git diff REF...).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Also write a report of the whole scan in this format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Report file (default: standard output).",
)
@click.option(
    "--effort-profile",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="TOML overriding the effort profile.",
)
def check(fail_on, min_confidence, min_score, baseline_file, diff_base, fmt, output, effort_profile, **kw):
    """Gate a change on ROCm portability: exit 1 when PATHS have findings the gate rejects.

    Fails on findings at or above --fail-on (of at least --min-confidence), on a readiness
    score below --min-score, and, with --baseline, only on findings the baseline does not know.
    """

    def body() -> int:
        from hipscan.effort import load_profile

        profile = load_profile(effort_profile)
        options = GateOptions(
            fail_on=None if fail_on == "none" else fail_on,
            min_confidence=min_confidence,
            min_score=min_score,
            baseline=load_baseline(baseline_file) if baseline_file else None,
            changed=changed_files(_root(kw), diff_base) if diff_base else None,
        )
        from hipscan.report import ReportContext

        check_output_file(output, "-o")
        result, rules, _ = _scan(kw)
        ctx = ReportContext.for_result(result, rules=rules, profile=profile)
        return run_gate(result, ctx, options, fmt, output)

    _guard(body)


def run_gate(
    result: ScanResult,
    ctx: ReportContext,
    options: GateOptions,
    fmt: str | None,
    output: Path | None,
) -> int:
    """Evaluate the gate, write the optional report, print the verdict; the exit code."""
    from hipscan.report import render, write_atomic

    gate = evaluate(result, ctx.effort.readiness, options)
    report_to_stdout = fmt is not None and output is None
    if fmt is not None:
        text = render(fmt, result, ctx)
        if output is not None:
            write_atomic(output, text)
        else:
            click.echo(text, nl=False)
    for line in explain(gate):
        click.echo(line, err=report_to_stdout)
    return gate.exit_code


@click.command("baseline")
@_with_scan_options
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Baseline file to write (JSON).",
)
def baseline(output, **kw):
    """Record the current findings of PATHS so `check --baseline` fails only on new ones."""

    def body() -> int:
        from hipscan.report import write_atomic

        check_output_file(output, "-o")
        result, _, _ = _scan(kw)
        write_atomic(output, render_baseline(result.findings, __version__))
        click.echo(f"wrote {len(result.findings)} finding(s) to {output}")
        return 0

    _guard(body)


commands = [check, baseline]
