"""Bad input of every kind: the exit code, one line naming what is wrong, the other files'
findings all there, and no output file left half-written.

Exit codes: 0 ran, 1 a gate failed, 2 usage/configuration/input error, 3 internal error,
130 interrupted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipscan.cli import main
from hipscan.config import ScanConfig
from hipscan.frontend import collect, discover
from hipscan.frontend.parse import ParseJob, nearest_header

ROOT = Path(__file__).resolve().parent.parent

GOOD = {
    "good/ptx.cu": '__global__ void k1(float *p) { asm volatile("bar.sync 0;"); }\n',
    "good/shfl.cu": "__global__ void k2(int *p) {\n  p[0] = __shfl_down_sync(0xffffffff, p[0], 1);\n}\n",
}


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)


def cli(*args: str, cwd: Path | None = None):
    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        return runner.invoke(main, list(args))
    finally:
        os.chdir(old)


def _findings(out: Path) -> set[tuple]:
    doc = json.loads(out.read_text())
    return {(f["rule"], f["path"], f["line"], f["column"]) for f in doc["findings"]}


def _no_temporaries(folder: Path) -> None:
    left = [p.name for p in folder.rglob("*") if p.name.endswith(".tmp")]
    assert not left, left


def _one_error_line(stderr: str, *words: str) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.fixture(scope="module")
def good_findings(tmp_path_factory) -> set[tuple]:
    root = tmp_path_factory.mktemp("alone")
    _write(root, GOOD)
    out = root.parent / "alone.json"
    r = cli("scan", str(root), "--format", "json", "-o", str(out), "--jobs", "1", "--no-cache")
    assert r.exit_code == 0, r.stderr
    found = _findings(out)
    assert {f[1] for f in found} == set(GOOD)
    return found


# -- bad files in the tree: the scan goes on ---------------------------------------------------


def test_bad_files_each_get_one_line_and_the_rest_is_scanned(tmp_path, good_findings):
    root = tmp_path / "t"
    _write(root, GOOD)
    _write(
        root,
        {
            "bad/binary.cu": b"\x7fELF\x00\x00\x01\x02" * 8,
            "bad/latin1.cu": "// caf\xe9\n__global__ void k3() {}\n".encode("latin-1"),
            "bad/empty.cu": "",
            "bad/huge.cu": "int x;\n" * 5000,
            "bad/passwd.cu": '#include "/etc/passwd"\n__global__ void k4() {}\n',
        },
    )
    (root / "bad" / "loop_a.cu").symlink_to("loop_b.cu")
    (root / "bad" / "loop_b.cu").symlink_to("loop_a.cu")
    (root / "bad" / "dir_loop").symlink_to(root, target_is_directory=True)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "r.json"
    args = ["scan", str(root), "--format", "json", "-o", str(out), "--jobs", "2", "--no-cache"]
    r = cli(*args, "--max-file-size", "20000")
    assert r.exit_code == 0, r.stderr
    got = _findings(out)
    assert good_findings <= got  # nothing lost to the bad neighbours
    status = {f["path"]: f for f in json.loads(out.read_text())["files"]}
    assert status["bad/binary.cu"]["status"] == "skipped: binary file"
    assert status["bad/empty.cu"]["status"] == "skipped: empty file"
    assert status["bad/huge.cu"]["status"].startswith("skipped: larger than --max-file-size")
    assert status["bad/loop_a.cu"]["status"] == "skipped: broken symbolic link"
    assert status["bad/latin1.cu"]["status"] == "ok"
    # a file outside the tree is never quoted: its diagnostics are summarised
    assert "/etc/passwd:" not in out.read_text()
    assert status["bad/passwd.cu"]["diagnostics"] == [
        f"{status['bad/passwd.cu']['error_count']} error(s) in a file outside the scanned tree (not quoted)"
    ]
    for name in ("binary.cu", "empty.cu", "huge.cu", "loop_a.cu"):
        assert sum(f"bad/{name}: skipped" in line for line in r.stderr.splitlines()) == 1
    _no_temporaries(out_dir)


def _crash_hang_or_parse(job, setup, watched, max_size):
    import faulthandler

    from hipscan.frontend.parse import parse_file

    name = Path(job.path).name
    if name == "crash.cu":
        faulthandler.disable()  # keep the crash dump out of the test output
        os.kill(os.getpid(), signal.SIGSEGV)
    if name == "hang.cu":
        time.sleep(60)
    return parse_file(job, setup, watched, max_size)


def test_crash_and_hang_leave_the_other_files_findings(tmp_path, monkeypatch, good_findings):
    import functools

    import hipscan.frontend as frontend
    from hipscan.api import scan
    from hipscan.frontend.pool import run_jobs

    root = tmp_path / "t"
    _write(root, GOOD)
    _write(root, {"bad/crash.cu": GOOD["good/ptx.cu"], "bad/hang.cu": GOOD["good/ptx.cu"]})
    monkeypatch.setattr(frontend, "run_jobs", functools.partial(run_jobs, parse=_crash_hang_or_parse))
    result = scan([root], ScanConfig(jobs=2, timeout=2.0, use_cache=False))
    status = {f.path: f.status for f in result.files}
    assert status["bad/crash.cu"] == "error: libclang crashed on this file (signal 11)"
    assert status["bad/hang.cu"] == "error: parse timed out after 2 s"
    got = {(f.rule, f.path, f.line, f.column) for f in result.findings}
    assert good_findings <= got


def test_etc_passwd_is_never_quoted_in_any_report(tmp_path):
    root = tmp_path / "t"
    _write(root, {"a.cu": '#include "/etc/passwd"\n__global__ void k() {}\n', "b.cu": GOOD["good/ptx.cu"]})
    db = [
        {
            "directory": str(root),
            "file": "b.cu",
            "arguments": [
                "nvcc",
                "-include",
                "/etc/passwd",
                "-Xclang",
                "-load",
                "-Xclang",
                "x.so",
                "-c",
                "b.cu",
            ],
        }
    ]
    (root / "compile_commands.json").write_text(json.dumps(db))
    first_line = Path("/etc/passwd").read_text().splitlines()[0].split(":")[0]
    for fmt in ("json", "sarif", "markdown", "html", "text"):
        out = tmp_path / f"r.{fmt}"
        r = cli("scan", str(root), "-p", str(root), "--format", fmt, "-o", str(out), "--jobs", "1")
        assert r.exit_code == 0, r.stderr
        text = out.read_text()
        assert f"'{first_line}'" not in text and "/etc/passwd:1" not in text, fmt
    assert "HIP201" in (tmp_path / "r.text").read_text()  # b.cu still parsed, without the passwd file
    notes = [line for line in r.stderr.splitlines() if "dropped" in line]
    assert len(notes) == 1 and "-include /etc/passwd" in notes[0] and "-Xclang -load" in notes[0]


def test_response_files_only_inside_the_tree(tmp_path):
    root = tmp_path / "t"
    _write(
        root, {"k.cu": "__global__ void k(int *o) {\n#ifdef LANES\n  o[0] = threadIdx.x & 31;\n#endif\n}\n"}
    )
    (root / "flags.rsp").write_text("-DLANES\n")
    (tmp_path / "outside.rsp").write_text("-DLANES -fplugin=/tmp/x.so\n")
    for rsp, expect in (("@flags.rsp", True), (f"@{tmp_path / 'outside.rsp'}", False)):
        db = [{"directory": str(root), "file": "k.cu", "arguments": ["nvcc", rsp, "-c", "k.cu"]}]
        (root / "compile_commands.json").write_text(json.dumps(db))
        r = cli("scan", str(root), "-p", str(root), "--no-report", "--no-cache", "--jobs", "1")
        assert r.exit_code == 0, r.stderr
        assert ("HIP301" in r.stdout) == expect, (rsp, r.stdout)
        assert ("response file outside the scanned tree" in r.stderr) == (not expect)


def test_unreadable_folder_is_reported(tmp_path, monkeypatch):
    root = tmp_path / "t"
    _write(root, GOOD)
    (root / "locked").mkdir()
    real = os.scandir

    def scandir(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    sources = discover([root], ScanConfig().excludes)
    assert (root / "locked", "skipped: cannot read folder (permission denied)") in sources.skipped


def test_worker_memory_limit_skips_the_file(tmp_path):
    from hipscan.frontend.clang import make_setup
    from hipscan.frontend.pool import run_jobs

    def greedy(job, setup, watched, max_size):
        if job.path.endswith("greedy.cu"):
            blocks = [bytearray(64 * 2**20) for _ in range(64)]  # 4 GiB
            return blocks  # pragma: no cover
        from hipscan.facts import FileFacts

        return FileFacts(path=Path(job.path).name)

    for name in ("greedy.cu", "fine.cu"):
        (tmp_path / name).write_text("int x;\n")
    jobs = [ParseJob(str(tmp_path / n), str(tmp_path)) for n in ("greedy.cu", "fine.cu")]
    setup = make_setup(ScanConfig(use_pch=False))
    got = {
        f.path: f.status
        for f in run_jobs(jobs, setup, frozenset(), 10**6, 1, 30, parse=greedy, max_memory=1024)
    }
    assert got == {
        "greedy.cu": "skipped: needs more memory than --max-memory allows (1024 MiB)",
        "fine.cu": "ok",
    }


# -- usage and configuration errors: exit 2, one line, before the scan -----------------------


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ('exclude = "src/*"', ["hipscan.toml", "'exclude'", "list of strings"]),
        ("ignore = 5", ["hipscan.toml", "'ignore'", "list of strings"]),
        ('severity = { HIP301 = "urgent" }', ["hipscan.toml", "'severity'", "HIP301", "info, low"]),
        ('mode = "fast"', ["hipscan.toml", "'mode'", "shim, toolkit, auto"]),
        ("jobs = -1", ["hipscan.toml", "'jobs'", "at least 0"]),
        ("timeout = true", ["hipscan.toml", "'timeout'", "a number"]),
        ('std = "c++17 -fplugin=x.so"', ["hipscan.toml", "'std'"]),
        ("exlude = []", ["hipscan.toml", "unknown key 'exlude'", "did you mean 'exclude'"]),
        ('ignore = ["HIP3O1"]', ["ignore", "'HIP3O1'", "HIP301"]),
        ('rules = ["no-such-rules"]', ["no-such-rules", "no such folder"]),
    ],
)
def test_configuration_errors_name_file_and_key(tmp_path, config, words):
    root = tmp_path / "t"
    _write(root, GOOD)
    (root / "hipscan.toml").write_text(config + "\n")
    out = tmp_path / "r.json"
    r = cli("scan", str(root), "--format", "json", "-o", str(out))
    assert r.exit_code == 2
    _one_error_line(r.stderr, *words)
    assert not out.exists()


def test_relative_paths_in_config_resolve_from_its_folder(tmp_path):
    root = tmp_path / "t"
    _write(root, GOOD)
    (root / "myrules").mkdir()
    (root / "incl").mkdir()
    (root / "hipscan.toml").write_text('rules = ["myrules"]\ninclude_dirs = ["incl"]\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = cli("scan", str(root), "--no-report", "--jobs", "1", cwd=elsewhere)
    assert r.exit_code == 0, r.stderr
    from hipscan.config import load_config

    config = load_config(root)
    assert config.rules_dirs == (str(root / "myrules"),) and config.include_dirs == (str(root / "incl"),)


@pytest.mark.parametrize(
    ("db", "words"),
    [
        ("{not json", ["compile_commands.json", "not valid JSON", "line 1"]),
        ('{"file": "a.cu"}', ["compile_commands.json", "expected a list"]),
        ('[{"directory": "/"}]', ["compile_commands.json", "entry 1", "'file'"]),
        ('[{"file": "a.cu", "arguments": "nvcc a.cu"}]', ["entry 1", "'arguments' must be a list"]),
        ('[{"file": "a.cu"}]', ["entry 1", "needs 'arguments'"]),
    ],
)
def test_bad_compile_database(tmp_path, db, words):
    root = tmp_path / "t"
    _write(root, GOOD)
    build = tmp_path / "build"
    build.mkdir()
    (build / "compile_commands.json").write_text(db)
    out = tmp_path / "r.json"
    r = cli("scan", str(root), "-p", str(build), "--format", "json", "-o", str(out))
    assert r.exit_code == 2
    _one_error_line(r.stderr, *words)
    assert not out.exists()


def test_missing_compile_database_and_paths(tmp_path):
    root = tmp_path / "t"
    _write(root, GOOD)
    r = cli("scan", str(root), "-p", str(tmp_path))  # a folder without compile_commands.json
    assert r.exit_code == 2
    _one_error_line(r.stderr, "compile_commands.json", "no such file")
    r = cli("scan", str(tmp_path / "nope"))
    assert r.exit_code == 2
    _one_error_line(r.stderr, "nope", "no such file")
    r = cli("scan", str(root), "--format", "yaml")
    assert r.exit_code == 2
    _one_error_line(r.stderr, "--format", "yaml")


def test_selection_typos_are_errors_with_suggestions(tmp_path):
    root = tmp_path / "t"
    _write(root, GOOD)
    for cmd in ("scan", "check"):
        r = cli(cmd, str(root), "--select", "HIP3O1")
        assert r.exit_code == 2, (cmd, r.stdout)
        _one_error_line(r.stderr, "--select", "'HIP3O1'", "did you mean HIP301")
    r = cli("check", str(root), "--ignore", "warp-sise")
    assert r.exit_code == 2
    _one_error_line(r.stderr, "--ignore", "warp-size")
    assert cli("scan", str(root), "--select", "warp-size", "--no-report", "--jobs", "1").exit_code == 0


def test_unwritable_outputs_fail_before_the_scan(tmp_path):
    root = tmp_path / "t"
    _write(root, GOOD)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for args, words in (
        (["scan", str(root), "--format", "json", "-o", str(blocker / "r.json")], ["-o", "not a folder"]),
        (["scan", str(root), "--report-dir", str(blocker)], ["--report-dir", "is a file"]),
        (["check", str(root), "--format", "sarif", "-o", str(tmp_path)], ["-o", "is a directory"]),
        (["baseline", str(root), "-o", str(blocker / "b.json")], ["-o", "not a folder"]),
        (["translate", str(root), "-o", str(blocker / "hip")], ["-o", "not a folder"]),
    ):
        start = time.monotonic()
        r = cli(*args)
        assert r.exit_code == 2, (args, r.stderr)
        _one_error_line(r.stderr, *words)
        assert time.monotonic() - start < 5  # refused before any parse
    assert blocker.read_text() == ""


def test_internal_error_is_exit_3_with_a_short_message(tmp_path, monkeypatch):
    import hipscan.api

    def broken(*a, **k):
        raise KeyError("oops")

    monkeypatch.setattr(hipscan.api, "scan", broken)
    root = tmp_path / "t"
    _write(root, GOOD)
    for cmd in (
        ["scan", str(root), "--no-report"],
        ["check", str(root)],
        ["translate", str(root), "-o", str(tmp_path / "o")],
    ):
        r = cli(*cmd)
        assert r.exit_code == 3, (cmd, r.stdout, r.stderr)
        _one_error_line(r.stderr, "internal error", "KeyError", "report", "--debug")
    r = cli("--debug", "scan", str(root), "--no-report")
    assert r.exit_code == 3 and "Traceback" in r.stderr and "KeyError" in r.stderr


def test_control_characters_in_file_names_are_escaped(tmp_path):
    root = tmp_path / "t"
    _write(root, {"odd\nname\x1b[31m.cu": GOOD["good/ptx.cu"]})
    r = cli("scan", str(root), "--no-report", "--jobs", "1", "--no-cache")
    assert r.exit_code == 0
    lines = [line for line in r.stdout.splitlines() if "HIP201" in line]
    assert lines == [lines[0]] and lines[0].startswith("odd\\nname\\x1b[31m.cu:1:")
    assert "\x1b" not in r.stdout


def test_default_report_folder_is_never_scanned(tmp_path):
    root = tmp_path / "t"
    _write(root, GOOD)
    _write(root, {"hipscan-report/leftover.cu": GOOD["good/ptx.cu"], "out/r/stale.cu": GOOD["good/ptx.cu"]})
    r = cli("scan", ".", "--jobs", "1", cwd=root)
    assert r.exit_code == 0 and "leftover.cu" not in r.stdout
    assert (root / "hipscan-report" / "report.json").is_file()
    r = cli("scan", ".", "--jobs", "1", "--report-dir", "out/r", cwd=root)
    assert r.exit_code == 0 and "stale.cu" not in r.stdout


def test_html_reference_links_are_valid(tmp_path):
    import re

    root = tmp_path / "t"
    _write(root, GOOD)
    out = tmp_path / "r.html"
    assert cli("scan", str(root), "--format", "html", "-o", str(out), "--jobs", "1").exit_code == 0
    hrefs = re.findall(r'href="([^"]*)"', out.read_text())
    assert any(h.startswith("https://") for h in hrefs)
    assert not [h for h in hrefs if "&gt;" in h or "&lt;" in h or h.endswith((".", ","))]


# -- processes: Ctrl-C, a closed pipe -----------------------------------------------------------


def _spawn(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "hipscan", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        **kw,
    )


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_the_workers_exits_130_and_leaves_no_partial_file(tmp_path, sig):
    root = tmp_path / "t"
    _write(root, GOOD)
    body = "".join(f"__global__ void k{i}(float *p) {{ p[{i}] = {i}; }}\n" for i in range(40000))
    _write(root, {f"slow{i}.cu": body for i in range(2)})
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    args = ["scan", str(root), "--format", "json", "-o", str(out_dir / "r.json"), "--jobs", "2", "--no-cache"]
    p = _spawn([*args, "--max-file-size", "10000000"])
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and len(workers) < 2:  # wait until the parses run
        time.sleep(0.2)
        workers = [int(c) for c in _children(p.pid)]
    time.sleep(0.5)
    if sig == signal.SIGINT:
        os.killpg(p.pid, sig)  # the terminal sends it to the whole process group
    else:
        p.send_signal(sig)  # a CI runner cancelling the job
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err.decode()
    assert err.decode().strip().splitlines() == ["hipscan: interrupted"]
    assert not list(out_dir.iterdir())
    time.sleep(0.2)
    assert not [w for w in workers if Path(f"/proc/{w}").exists() and _state(w) != "Z"]


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (OSError, IndexError):
        return "Z"


def test_closed_pipe_is_quiet():
    p = subprocess.run(
        f"{sys.executable} -m hipscan rules | head -n 1",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.stdout.startswith("HIP") and len(p.stdout.splitlines()) == 1
    assert "Traceback" not in p.stderr and "Broken pipe" not in p.stderr


# -- the right files, counted once ------------------------------------------------------------


def test_missing_header_resolves_to_the_nearest_or_to_none(tmp_path):
    root = tmp_path
    files = {
        "progA/src/main.cu": '#include "graph.h"\n',
        "progA/include/graph.h": "",
        "progB/graph.h": "",
        "progC/main.cu": '#include "graph.h"\n',
        "progD/graph.h": "",
    }
    _write(root, files)
    index: dict[str, tuple[str, ...]] = {
        "graph.h": tuple(str(root / f) for f in files if f.endswith("graph.h"))
    }
    job = ParseJob(str(root / "progA/src/main.cu"), str(root), header_index=index)
    assert nearest_header("graph.h", str(root / "progA/src/main.cu"), job) == str(
        root / "progA/include/graph.h"
    )
    # progC has none of its own: progB's and progD's are equally near, so neither is guessed
    assert nearest_header("graph.h", str(root / "progC/main.cu"), job) is None


def test_a_folder_found_for_one_header_does_not_capture_another(tmp_path):
    """y.cu needs lib/ for util.h; its graph.h is nearer in progY/sub than in lib/."""
    import sys as _sys

    from hipscan.api import scan

    _sys.path.insert(0, str(Path(__file__).parent))
    from test_determinism import _shared_folder_with_a_nearer_twin

    _shared_folder_with_a_nearer_twin(tmp_path)
    for jobs in (1, 2):
        result = scan([tmp_path], ScanConfig(jobs=jobs, use_cache=False))
        y = next(f for f in result.facts if f.path == "progY/y.cu")
        assert {i.name: i.resolved for i in y.includes} == {
            "util.h": "lib/util.h",
            "graph.h": "progY/sub/graph.h",
        }
        assert "HIP351" not in {f.rule for f in result.findings}  # lib/graph.h's FROM_Y branch stays off


def test_files_counted_once_and_a_header_has_its_own_status(tmp_path):
    root = tmp_path / "t"
    _write(
        root,
        {
            "clean.cuh": "__device__ inline int twice(int x) { return 2 * x; }\n",
            "part.cu": '#include "clean.cuh"\n__global__ void kp(int *p) { p[0] = twice(1); }\n',
            "all.cu": '#include "part.cu"\n#include "no_such_lib.h"\n__global__ void ka() {}\n',
        },
    )
    sources = discover([root], ScanConfig().excludes)
    assert len(list(collect(sources, ScanConfig(jobs=1, use_cache=False), frozenset()))) >= 3
    out = tmp_path / "r.json"
    r = cli("scan", str(root), "--format", "json", "-o", str(out), "--jobs", "1", "--no-cache")
    assert r.exit_code == 0
    doc = json.loads(out.read_text())
    paths = [f["path"] for f in doc["files"]]
    assert sorted(paths) == sorted(set(paths)) == ["all.cu", "clean.cuh", "part.cu"]
    status = {f["path"]: f["status"] for f in doc["files"]}
    assert status == {"all.cu": "parse-errors", "part.cu": "ok", "clean.cuh": "ok"}
    assert doc["summary"]["files"] == 3
