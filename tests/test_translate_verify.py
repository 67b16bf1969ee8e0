"""The hipcc compile check: error mapping back to original lines and the 'unexplained' verdict."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hipscan.model import Finding
from hipscan.translate import TranslateOptions, translate_tree
from hipscan.translate.result import FileTranslation, LineMap
from hipscan.translate.verify import CompileResult, _explain, _parse_errors, verify_outputs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "translate"
needs_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc not installed")


def _finding(path: str, line: int, severity: str = "blocker", rule: str = "HIP9001") -> Finding:
    return Finding(
        rule=rule,
        name="t",
        category="unmapped-api",
        severity=severity,
        confidence="high",
        effort="small",
        path=path,
        line=line,
        column=1,
        message="m",
    )


def test_errors_map_back_through_line_map_and_include_chain(tmp_path):
    main = FileTranslation("k.cu", "k.hip", line_map=LineMap([(1, 2), (5, 1)]))
    head = FileTranslation("inc/h.cuh", "inc/h.cuh", line_map=LineMap([(1, 1)]))
    by_output = {"k.hip": main, "inc/h.cuh": head}
    out = tmp_path
    text = (
        f"{out}/k.hip:9:5: error: use of undeclared identifier 'x'\n"
        "    x = 1;\n    ^\n"
        f"In file included from {out}/k.hip:3:\n"
        f"{out}/inc/h.cuh:4:2: error: bad thing\n"
        f"In file included from {out}/k.hip:4:\n"
        "/usr/include/hip/amd_detail/foo.h:10:1: error: inside a system header\n"
        "<inline asm>:1:2: error: invalid instruction\n"
        "        mov.u32 %0, %laneid;\n"
        f"{out}/k.hip:12:7: note: instantiated into assembly here\n"
        f"{out}/k.hip:13:1: warning: not an error\n"
    )
    errs = _parse_errors(text, out, by_output, limit=10)
    got = [(e.source, e.line, e.column, e.message) for e in errs]
    assert got == [
        ("k.cu", 6, 5, "use of undeclared identifier 'x'"),  # 9 - 2 (header) - 1 (marker above 5)
        ("inc/h.cuh", 3, 2, "bad thing"),
        ("k.cu", 2, 0, "inside a system header"),  # the project line that included it
        ("k.cu", 9, 7, "invalid instruction"),
    ]


def test_unexplained_verdict():
    def result(errors):
        r = CompileResult("k.cu", "k.hip", "fail")
        r.errors = errors
        return r

    from hipscan.translate.verify import CompileError

    near = [CompileError("k.cu", 10, 1, "e", "k.hip", 12)]
    r = result(near)
    _explain(r, {"k.cu": [_finding("k.cu", 12)]}, ["k.cu"])
    assert r.errors[0].explained_by == ["HIP9001"] and r.has_blocker and not r.unexplained
    r = result([CompileError("k.cu", 10, 1, "e", "k.hip", 12)])
    _explain(r, {"k.cu": [_finding("k.cu", 13)]}, ["k.cu"])
    assert r.unexplained  # three lines away
    r = result([CompileError("k.cu", 10, 1, "e", "k.hip", 12)])
    _explain(r, {"k.cu": [_finding("k.cu", 10, severity="high")]}, ["k.cu"])
    assert not r.unexplained and not r.has_blocker  # a finding on the line explains it


def test_error_in_a_branch_is_explained_by_the_directive_that_chose_it(tmp_path):
    from hipscan.translate.verify import CompileError

    root = tmp_path / "src"
    root.mkdir()
    (root / "k.cu").write_text(
        "int v;\n"  # 1
        "#if CUDART_VERSION >= 2020\n"  # 2
        "int a;\n"  # 3
        "#else\n"  # 4
        "int b;\n"  # 5
        "int c;\n"  # 6
        "int d = missing();\n"  # 7
        "#endif\n"  # 8
        "int e = missing();\n"  # 9
    )
    [tr] = translate_tree(root, [root / "k.cu"], [], tmp_path / "out", TranslateOptions())
    assert tr.conditionals == [(2, 8, (2, 4))]
    blocks = {"k.cu": tr.conditionals}
    flagged = {"k.cu": [_finding("k.cu", 2, rule="HIP844")]}
    inside = CompileResult("k.cu", "k.hip", "fail")
    inside.errors = [CompileError("k.cu", 7, 9, "undeclared", "k.hip", 8)]
    _explain(inside, flagged, ["k.cu"], conditionals=blocks)
    assert inside.errors[0].explained_by == ["HIP844"]  # five lines below the #if
    outside = CompileResult("k.cu", "k.hip", "fail")
    outside.errors = [CompileError("k.cu", 9, 9, "undeclared", "k.hip", 10)]
    _explain(outside, flagged, ["k.cu"], conditionals=blocks)
    assert outside.errors[0].explained_by == [] and outside.unexplained


def test_skips_cleanly_without_hipcc(tmp_path, monkeypatch):
    monkeypatch.setattr("hipscan.translate.verify.find_hipcc", lambda: None)
    files = sorted(p for p in (FIXTURES / "basic").rglob("*") if p.is_file())
    results = translate_tree(FIXTURES / "basic", files, [], tmp_path / "out", TranslateOptions())
    compiled = verify_outputs(results, tmp_path / "out")
    assert [c.source for c in compiled] == ["host_only.cpp", "vector_add.cu"]
    assert all(c.status == "skipped: hipcc not found" and not c.unexplained for c in compiled)


@needs_hipcc
def test_translated_fixture_compiles_for_gfx90a(tmp_path):
    files = sorted(p for p in (FIXTURES / "basic").rglob("*") if p.is_file())
    results = translate_tree(FIXTURES / "basic", files, [], tmp_path / "out", TranslateOptions())
    compiled = {c.source: c for c in verify_outputs(results, tmp_path / "out", timeout=300)}
    assert compiled["vector_add.cu"].status == "pass", compiled["vector_add.cu"].errors
    assert compiled["host_only.cpp"].status == "pass", compiled["host_only.cpp"].errors
    assert "include/common.cuh" not in compiled  # headers are compiled through their includers


@needs_hipcc
def test_compile_check_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    files = [FIXTURES / "basic" / "vector_add.cu"]
    results = translate_tree(FIXTURES / "basic", files, [], tmp_path / "out", TranslateOptions())
    verify_outputs(results, tmp_path / "out", timeout=300)
    assert list(scratch.iterdir()) == []  # hipcc's per-compile <stem>-XXXXXX folders included


@needs_hipcc
def test_hip_launch_syntax_compiles(tmp_path):
    files = [FIXTURES / "launch" / "launches.cu"]
    results = translate_tree(
        FIXTURES / "launch", files, [], tmp_path / "out", TranslateOptions(launch_syntax="hip")
    )
    [c] = verify_outputs(results, tmp_path / "out", timeout=300)
    assert c.status == "pass", c.errors


@needs_hipcc
def test_failures_map_to_original_lines_and_findings_explain_them(tmp_path):
    files = [FIXTURES / "launch" / "unsupported.cu"]
    findings = [_finding("unsupported.cu", 7)]
    results = translate_tree(FIXTURES / "launch", files, findings, tmp_path / "out", TranslateOptions())
    [c] = verify_outputs(results, tmp_path / "out", findings, timeout=300)
    assert c.status == "fail"
    assert {(e.source, e.line) for e in c.errors} <= {("unsupported.cu", 7), ("unsupported.cu", 8)}
    assert all(e.explained_by == ["HIP9001"] for e in c.errors) and not c.unexplained
    [c2] = verify_outputs(results, tmp_path / "out", [], timeout=300)
    assert c2.unexplained


def test_missing_hip_library_headers_are_not_a_missing_rule():
    from hipscan.translate.verify import CompileError

    r = CompileResult("k.cu", "k.hip", "fail")
    r.errors = [CompileError("k.cu", 3, 10, "'hipblas/hipblas.h' file not found", "k.hip", 4)]
    _explain(r, {}, ["k.cu"], frozenset({"hipblas/hipblas.h"}))
    assert r.missing_headers == ["hipblas/hipblas.h"] and not r.unexplained
    r = CompileResult("k.cu", "k.hip", "fail")
    r.errors = [CompileError("k.cu", 3, 10, "'nvtx3/nvToolsExt.h' file not found", "k.hip", 4)]
    _explain(r, {}, ["k.cu"], frozenset({"hipblas/hipblas.h"}))
    assert r.missing_headers == [] and r.unexplained  # a CUDA header: a rule should say so


def test_missing_third_party_headers_are_the_machines_not_the_translations():
    from hipscan.translate.verify import CompileError

    r = CompileResult("k.cu", "k.hip", "fail")
    r.errors = [
        CompileError("k.cu", 3, 10, "unknown type name 'hipGraphicsResource'", "k.hip", 4),
        CompileError("helper_gl.h", 39, 10, "'GL/gl.h' file not found", "helper_gl.h", 39),
    ]
    _explain(r, {"k.cu": [_finding("k.cu", 3, rule="HIP853")]}, ["k.cu"], frozenset())
    assert r.errors[1].environment and not r.unexplained and r.missing_headers == []
    r = CompileResult("k.cu", "k.hip", "fail")
    r.errors = [CompileError("k.cu", 3, 10, "'cuda/barrier' file not found", "k.hip", 4)]
    _explain(r, {}, ["k.cu"], frozenset())
    assert not r.errors[0].environment and r.unexplained


@needs_hipcc
def test_call_argument_fixes_compile(tmp_path):
    """Arguments cast, hipHostMalloc, defaults spelled out: each failed to compile without."""
    files = sorted((FIXTURES / "call_args").iterdir())
    results = translate_tree(FIXTURES / "call_args", files, [], tmp_path / "out", TranslateOptions())
    compiled = verify_outputs(results, tmp_path / "out", timeout=300)
    assert [c.source for c in compiled] == ["attributes.cu", "rtc.cpp", "streams.cu"]
    assert all(c.status == "pass" for c in compiled), [c.errors for c in compiled]


def test_header_flags_reach_the_compile_command(tmp_path, monkeypatch):
    """A source including a header that needs -fopenmp is compiled with it (no hipcc needed)."""
    import hipscan.translate.verify as verify

    root = tmp_path / "src"
    root.mkdir()
    (root / "par.cuh").write_text("#include <omp.h>\n")
    (root / "main.cu").write_text('#include "par.cuh"\n__global__ void k() {}\n')
    (root / "plain.cu").write_text("__global__ void k() {}\n")
    files = sorted(root.iterdir())
    results = translate_tree(root, files, [], tmp_path / "out", TranslateOptions())
    seen = {}

    def fake_run(cmd, **kwargs):
        seen[Path(cmd[4]).name] = cmd
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(verify.subprocess, "run", fake_run)
    compiled = verify_outputs(results, tmp_path / "out", hipcc="hipcc")
    assert all(c.status == "pass" for c in compiled)
    assert "-fopenmp" in seen["main.hip"]
    assert "-fopenmp" not in seen["plain.hip"]


def test_notes_name_the_colliding_project_declaration(tmp_path):
    """`ambiguous` / `redefinition` errors are explained by a finding on the declaration a note
    points at (a project operator or struct that collides with HIP's own)."""
    main = FileTranslation("k.cu", "k.hip", line_map=LineMap([(1, 1)]))
    head = FileTranslation("m.h", "m.h", line_map=LineMap([(1, 1)]))
    by_output = {"k.hip": main, "m.h": head}
    out = tmp_path
    text = (
        f"{out}/k.hip:20:5: error: use of overloaded operator '+=' is ambiguous\n"
        "/usr/include/hip/amd_detail/amd_hip_vector_types.h:500:3: note: candidate function\n"
        f"{out}/m.h:40:1: note: candidate function\n"
        f"{out}/k.hip:30:1: warning: unused\n"
        f"{out}/m.h:90:1: note: about the warning, not the error\n"
        f"{out}/k.hip:31:2: error: no notes\n"
    )
    errs = _parse_errors(text, out, by_output, limit=10)
    # LineMap([(1, 1)]) puts emitted line n on original line n - 1
    assert [(e.line, e.notes) for e in errs] == [(19, [("m.h", 39)]), (30, [])]
    r = CompileResult("k.cu", "k.hip", "fail")
    r.errors = errs[:1]
    _explain(r, {"m.h": [_finding("m.h", 41, rule="HIP911")]}, ["k.cu", "m.h"])
    assert r.errors[0].explained_by == ["HIP911"] and not r.unexplained
    r = CompileResult("k.cu", "k.hip", "fail")
    r.errors = _parse_errors(text, out, by_output, limit=10)[:1]
    _explain(r, {"m.h": [_finding("m.h", 95, rule="HIP911")]}, ["k.cu", "m.h"])
    assert r.unexplained  # a finding far from the note's line explains nothing


def test_name_removed_by_a_flagged_directive_explains_undeclared_errors(tmp_path):
    from hipscan.translate.verify import CompileError

    root = tmp_path / "src"
    root.mkdir()
    (root / "k.cu").write_text(
        "#if CUDART_VERSION >= 2020\n"  # 1
        '#include "kern.cuh"\n'  # 2
        "#endif\n"  # 3
        "int main() { return setCount(0) + other(); }\n"  # 4
    )
    (root / "kern.cuh").write_text("int setCount(int n) { return n; }\n")
    results = translate_tree(
        root, [root / "k.cu", root / "kern.cuh"], [], tmp_path / "out", TranslateOptions()
    )
    by_output = {tr.output: tr for tr in results}
    flagged = {"k.cu": [_finding("k.cu", 1, rule="HIP844")]}
    r = CompileResult("k.cu", "k.hip", "fail")
    r.errors = [
        CompileError("k.cu", 4, 21, "use of undeclared identifier 'setCount'", "k.hip", 5),
        CompileError("k.cu", 4, 35, "use of undeclared identifier 'other'", "k.hip", 5),
    ]
    _explain(r, flagged, ["k.cu", "kern.cuh"], unit=by_output["k.hip"], by_output=by_output)
    assert r.errors[0].explained_by == ["HIP844"]  # defined only in the header the #if removed
    assert r.errors[1].explained_by == [] and r.unexplained  # spelled nowhere the #if removed


def test_errors_cascading_from_an_explained_declaration_are_explained(tmp_path):
    from hipscan.translate.verify import CompileError, _explain_cascades

    root = tmp_path / "src"
    root.mkdir()
    (root / "k.cu").write_text(
        "typedef curandStateSobol64_t state_t;\n"  # 1: HIP lacks the type (explained)
        "int n;\n"  # 2
        "void f(state_t *s);\n"  # 3: every use of state_t fails with it
        "void g(int *p);\n"  # 4
    )
    [tr] = translate_tree(root, [root / "k.cu"], [], tmp_path / "out", TranslateOptions())
    errors = [
        CompileError("k.cu", 1, 9, "unknown type name", "k.hip", 2, ["HIP902"]),
        CompileError("k.cu", 3, 8, "unknown type name 'state_t'", "k.hip", 4),
        CompileError("k.cu", 4, 8, "something else", "k.hip", 5),
    ]
    _explain_cascades(errors, {"k.cu": tr})
    assert errors[1].explained_by == ["HIP902"] and errors[2].explained_by == []


@needs_hipcc
def test_c_sources_are_compiled_as_c(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    (root / "loader.c").write_text("#include <cuda.h>\nint ready(void) { return CUDA_SUCCESS; }\n")
    out = tmp_path / "out"
    results = translate_tree(root, [root / "loader.c"], [], out, TranslateOptions())
    [res] = verify_outputs(results, out, [], jobs=1)
    assert res.status == "pass", res.errors
    assert "-std=c++17" not in res.command
