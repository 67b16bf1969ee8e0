"""The CI gate: thresholds, baselines that survive line moves, --diff-base, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from test_report_sample import moved, sample_result  # noqa: E402

from hipscan import cli_gate  # noqa: E402
from hipscan.baseline import (  # noqa: E402
    BaselineEntry,
    BaselineError,
    compare,
    load_baseline,
    normalise_snippet,
    render_baseline,
)
from hipscan.gate import GateError, GateOptions, changed_files, evaluate  # noqa: E402


def entries(findings) -> list[BaselineEntry]:
    doc = json.loads(render_baseline(findings, "test"))
    return [
        BaselineEntry(r["rule"], r["path"], r["snippet"], r["function"], r["line"]) for r in doc["findings"]
    ]


# ---------------------------------------------------------------------------------------------
# Baseline matching


def test_baseline_matches_after_lines_move(tmp_path):
    _, result = sample_result(tmp_path)
    base = entries(result.findings)
    match = compare(moved(result, "src/tree.cu", 12).findings, base)
    assert match.new == [] and len(match.known) == 5 and match.fixed == []


def test_reindented_code_is_not_new(tmp_path):
    _, result = sample_result(tmp_path)
    base = entries(result.findings)
    f = result.findings[0]
    reindented = [replace(f, snippet="    " + f.snippet.replace(" ", "  "), line=f.line + 2)]
    assert compare(reindented, base).new == []
    assert normalise_snippet("  a \t b  ") == "a b"


def test_new_and_fixed_findings(tmp_path):
    _, result = sample_result(tmp_path)
    base = entries(result.findings[1:])
    extra = replace(result.findings[1], snippet="other line", line=40)
    match = compare([*result.findings[1:], result.findings[0], extra], base)
    assert sorted(f.rule for f in match.new) == ["HIP201", "HIP202"]
    match = compare(result.findings[2:], base)
    assert [e.rule for e in match.fixed] == ["HIP202"]


def test_twins_match_to_the_nearest_line(tmp_path):
    _, result = sample_result(tmp_path)
    f = result.findings[0]
    twins = [replace(f, line=10), replace(f, line=50)]
    base = entries(twins)
    # one twin removed, the other moved by 3 lines: exactly one known, none new
    match = compare([replace(f, line=53)], base)
    assert match.new == [] and [e.line for e in match.fixed] == [10]
    # a third copy appears: it is new
    match = compare([replace(f, line=10), replace(f, line=50), replace(f, line=90)], base)
    assert [x.line for x in match.new] == [90]


def test_baseline_file_errors(tmp_path):
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    with pytest.raises(BaselineError, match="cannot read baseline"):
        load_baseline(bad)
    bad.write_text(json.dumps({"tool": "other", "findings": []}))
    with pytest.raises(BaselineError, match="not a hipscan baseline"):
        load_baseline(bad)
    bad.write_text(json.dumps({"tool": "hipscan", "baseline": 1, "findings": [{"x": 1}]}))
    with pytest.raises(BaselineError, match="malformed"):
        load_baseline(bad)


# ---------------------------------------------------------------------------------------------
# Gate conditions


def test_severity_threshold_and_confidence(tmp_path):
    _, result = sample_result(tmp_path)
    gate = evaluate(result, 50, GateOptions())
    assert gate.failed and gate.exit_code == 1
    assert sorted(f.rule for f in gate.failing) == ["HIP101", "HIP202", "HIP301"]
    assert evaluate(result, 50, GateOptions(fail_on="blocker")).failing[0].rule == "HIP101"
    assert not evaluate(result, 50, GateOptions(fail_on=None)).failed
    # low confidence does not count by default
    result.findings = [replace(f, confidence="low") for f in result.findings]
    assert not evaluate(result, 50, GateOptions()).failed
    assert evaluate(result, 50, GateOptions(min_confidence="low")).failed


def test_min_score(tmp_path):
    _, result = sample_result(tmp_path)
    gate = evaluate(result, 40, GateOptions(fail_on=None, min_score=60))
    assert gate.reasons == ["readiness score 40 is below --min-score 60"]
    assert not evaluate(result, 60, GateOptions(fail_on=None, min_score=60)).failed


def test_baseline_accepts_known_findings(tmp_path):
    _, result = sample_result(tmp_path)
    base = entries(result.findings)
    assert not evaluate(moved(result, "src/tree.cu", 3), 50, GateOptions(baseline=base)).failed
    new = replace(result.findings[2], snippet='asm volatile("exit;");', line=2)
    gate = evaluate(replace_findings(result, [*result.findings, new]), 50, GateOptions(baseline=base))
    assert gate.failing == [new] and gate.known == 5
    assert "1 new finding(s)" in gate.reasons[0]


def replace_findings(result, findings):
    return type(result)(result.root, result.files, findings, result.facts, result.seconds)


def test_changed_files_limit_the_check(tmp_path):
    _, result = sample_result(tmp_path)
    gate = evaluate(result, 50, GateOptions(changed=frozenset({"src/reduce.cu"})))
    assert [f.rule for f in gate.failing] == ["HIP301"]
    assert "in changed files" in gate.reasons[0]
    assert not evaluate(result, 50, GateOptions(changed=frozenset({"src/plain.cpp"}))).failed


def test_bad_options():
    with pytest.raises(GateError):
        GateOptions(fail_on="severe")
    with pytest.raises(GateError):
        GateOptions(min_score=101)


# ---------------------------------------------------------------------------------------------
# git diff REF...


def git(cwd: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "HOME": str(cwd),
        "PATH": "/usr/bin:/bin",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_changed_files_from_git(tmp_path):
    repo = tmp_path / "repo"
    sample_result(repo / "proj")
    (repo / "outside.txt").write_text("x\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "proj/src/reduce.cu").write_text("// changed\n")
    (repo / "outside.txt").write_text("y\n")
    git(repo, "commit", "-q", "-am", "change")
    assert changed_files(repo / "proj", "main") == {"src/reduce.cu"}
    with pytest.raises(GateError, match="git diff"):
        changed_files(repo / "proj", "no-such-ref")


# ---------------------------------------------------------------------------------------------
# The commands


@pytest.fixture
def cli(tmp_path, monkeypatch):
    from hipscan.cli import main

    _, result = sample_result(tmp_path / "proj")
    state = {"result": result}
    monkeypatch.setattr(cli_gate, "_scan", lambda kw: (state["result"], None, tmp_path / "proj"))
    runner = CliRunner()

    def run(*args):
        return runner.invoke(main, list(args), catch_exceptions=False)

    run.state = state
    run.root = tmp_path / "proj"
    return run


def test_check_exit_codes(cli, tmp_path):
    root = str(cli.root)
    r = cli("check", root)
    assert r.exit_code == 1
    assert "hipscan check FAILED" in r.output and "src/tree.cu:4:3: HIP101 [blocker]" in r.output
    assert cli("check", root, "--fail-on", "none").exit_code == 0
    assert cli("check", root, "--fail-on", "none", "--min-score", "99").exit_code == 1
    assert cli("check", root, "--fail-on", "bogus").exit_code == 2
    profile = tmp_path / "p.toml"
    profile.write_text("[hours]\nnope = 1\n")
    r = cli("check", root, "--effort-profile", str(profile))
    assert r.exit_code == 2 and "hours.nope: unknown key" in r.output


def test_baseline_then_check(cli, tmp_path):
    root = str(cli.root)
    out = tmp_path / "hipscan-baseline.json"
    r = cli("baseline", root, "-o", str(out))
    assert r.exit_code == 0 and "wrote 5 finding(s)" in r.output
    assert len(load_baseline(out)) == 5
    cli.state["result"] = moved(cli.state["result"], "src/reduce.cu", 4)
    assert cli("check", root, "--baseline", str(out)).exit_code == 0
    f = cli.state["result"].findings[3]
    cli.state["result"].findings.append(replace(f, snippet="new code", line=1))
    r = cli("check", root, "--baseline", str(out))
    assert r.exit_code == 1 and "1 new finding(s)" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert cli("check", root, "--baseline", str(bad)).exit_code == 2


def test_check_writes_a_report(cli, tmp_path):
    out = tmp_path / "r" / "hipscan.sarif"
    r = cli("check", str(cli.root), "--format", "sarif", "-o", str(out))
    assert r.exit_code == 1
    assert json.loads(out.read_text())["version"] == "2.1.0"
    r = cli("check", str(cli.root), "--format", "json", "--fail-on", "none")
    assert r.exit_code == 0 and json.loads(r.stdout)["tool"] == "hipscan"


def test_pre_commit_hook_runs_the_check_command():
    yaml = pytest.importorskip("yaml")
    from hipscan.cli import main

    hooks = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["id"] == "hipscan-check" and hook["entry"] == "hipscan check"
    assert "check" in main.commands and hook["pass_filenames"] is False
