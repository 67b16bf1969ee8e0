"""The real-port accuracy harness (benchmarks/accuracy.py and benchmarks/ports/): matching rules,
label parsing, the arm-macro expansion and the separate-file comparison."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "benchmarks" / "ports"))

import accuracy  # noqa: E402
import hunks  # noqa: E402
import prepare  # noqa: E402


def label(kind: str, line: int, end: int | None = None, cls: str = "warp") -> accuracy.Label:
    return accuracy.Label("a.cu", line, end or line, kind, cls, "warp-size", "")


def finding(line: int, related: list[tuple[str, int]] | None = None, path: str = "a.cu") -> accuracy.Finding:
    return accuracy.Finding("HIP301", "warp-size", path, line, "m", related or [])


def test_edit_hit_within_three_lines_or_by_related_location() -> None:
    edit = label("edit", 10, 12)
    assert accuracy.edit_hit(edit, [finding(15)])
    assert not accuracy.edit_hit(edit, [finding(16)])
    assert accuracy.edit_hit(edit, [finding(40, related=[("a.cu", 8)])])
    assert not accuracy.edit_hit(edit, [finding(10, path="b.cu")])


def test_related_location_in_another_file_hits_the_edit_there() -> None:
    edit = label("edit", 10)
    header_root = finding(3, related=[("a.cu", 11)], path="w.cuh")  # a header's width constant
    tallies, outcomes = accuracy.measure([edit], [header_root])
    assert outcomes == [(edit, True)]
    assert tallies[("warp", "warp-size")].hit == 1


def test_left_alone_reported_only_on_its_own_lines() -> None:
    alone = label("left-alone", 20, 21)
    assert accuracy.reported(alone, [finding(21)])
    assert not accuracy.reported(alone, [finding(22)])
    assert not accuracy.reported(alone, [finding(50, related=[("a.cu", 20)])])


def test_where_findings_land_and_unlabelled() -> None:
    labels = [label("edit", 10), label("edit", 30, cls="rename"), label("left-alone", 50)]
    found = [finding(11), finding(31), finding(50), finding(70), finding(5, path="other.cu")]
    w = accuracy.where(labels, found)
    assert (w.findings, w.on_edit, w.on_rename, w.on_left_alone, w.on_nothing) == (4, 1, 1, 1, 1)
    assert [f.line for f in accuracy.unlabelled(labels, found)] == [70]


def test_tuning_and_port_choices_are_counted_apart() -> None:
    def nonwarp(kind: str, line: int, note: str) -> accuracy.Label:
        return accuracy.Label("a.cu", line, line, kind, "non-warp", "other", note)

    labels = [
        nonwarp("edit", 10, "tuning: 256 -> 512 threads"),
        nonwarp("edit", 20, "port's choice: rocBLAS instead of hipBLAS"),
        nonwarp("edit", 30, "cudaFuncSetAttribute kept"),
        nonwarp("left-alone", 40, "tuning: kept"),
    ]
    _tallies, outcomes = accuracy.measure(labels, [finding(10), finding(40)])
    t = accuracy.without_choices([("x", outcomes, [])])
    assert (t.edits, t.hit, t.alone, t.flagged) == (1, 0, 1, 1)


def test_label_file_errors_name_the_row(tmp_path: Path) -> None:
    good = tmp_path / "x.csv"
    good.write_text(
        "# comment\npath,line,end_line,kind,class,category,note\na.cu,3,,edit,warp,warp-size,a, b\n"
    )
    (lab,) = accuracy.parse_labels(good)
    assert (lab.line, lab.end_line, lab.note) == (3, 3, "a, b")
    bad = tmp_path / "y.csv"
    bad.write_text("path,line,end_line,kind,class,category,note\na.cu,3,,edit,blue,warp-size,x\n")
    with pytest.raises(accuracy.InputError, match="y.csv: row 1"):
        accuracy.parse_labels(bad)


def test_arm_macro_keeps_the_cuda_argument_and_line_numbers() -> None:
    text = "a();\nx = AMREX_HIP_OR_CUDA( __shfl(v, 1);,\n    __shfl_sync(0xffffffff, v, 1); )\nb();\n"
    macros = (("AMREX_HIP_OR_CUDA", 2, 1),)
    cuda = prepare.expand_arm_macros(text, macros, "cuda")
    hip = prepare.expand_arm_macros(text, macros, "hip")
    assert cuda.splitlines()[1] == "x = __shfl_sync(0xffffffff, v, 1);"
    assert hip.splitlines()[1] == "x = __shfl(v, 1);"
    assert cuda.count("\n") == hip.count("\n") == text.count("\n")
    defined = "#define AMREX_HIP_OR_CUDA(a,b) b\n"
    assert prepare.expand_arm_macros(defined, macros, "cuda") == defined


def test_switch_unifdef_leaves_in_a_condition_is_settled_line_for_line() -> None:
    # exllamav2 compat.cuh: unifdef -UUSE_ROCM keeps `#if defined(USE_ROCM) || (...)` as it is
    text = (
        "#if defined(USE_ROCM) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750)\n"
        "#if X && \\\n    defined USE_ROCM\n"
        "int n = defined(USE_ROCM_X);\n"
        "#elif !defined( HIP_HALF )\n"
    )
    out = prepare.settle_defined(text, ("-UUSE_ROCM", "-DHIP_HALF=1"))
    assert out.splitlines() == [
        "#if 0 || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750)",
        "#if X && \\",
        "    0",
        "int n = defined(USE_ROCM_X);",
        "#elif !1",
    ]
    assert prepare.settle_defined(text, ()) == text
    # the switch used as a value in a condition (Horovod's `#if HAVE_GPU && !HAVE_ROCM`), not in a
    # definition or a function-like use
    text = (
        "#if HAVE_GPU && !HAVE_ROCM\n#define USE HAVE_ROCM\n#elif HAVE_ROCM_X || HAVE_ROCM(1)\n#if V >= 2\n"
    )
    assert prepare.settle_defined(text, ("-UHAVE_ROCM", "-DV=3")).splitlines() == [
        "#if HAVE_GPU && !0",
        "#define USE HAVE_ROCM",
        "#elif HAVE_ROCM_X || HAVE_ROCM(1)",
        "#if 3 >= 2",
    ]


@pytest.mark.skipif(shutil.which("unifdef") is None, reason="unifdef not installed")
def test_unifdef_cuts_a_file_with_digit_separators(tmp_path: Path) -> None:
    # FBGEMM cuda_prelude.cuh: unifdef reads 0xff'ff'ff'ffu as an unterminated character literal
    src = tmp_path / "prelude.cuh"
    src.write_text(
        "#if defined(USE_ROCM)\n"
        "static constexpr uint64_t kFullWarpMask = 0xff'ff'ff'ff'ff'ff'ff'ffull;\n"
        "#else\n"
        "static constexpr uint32_t kFullWarpMask = 0xff'ff'ff'ffu;\n"
        "#endif\n"
        "char c = '0'; // stage 2's mask\n"
    )
    assert prepare.unifdef(src, ("-UUSE_ROCM",)) is None
    assert src.read_text().split("\n") == [
        "",
        "",
        "",
        "static constexpr uint32_t kFullWarpMask = 0xff'ff'ff'ffu;",
        "",
        "char c = '0'; // stage 2's mask",
        "",
    ]


def test_separate_file_port_ignores_renames_and_layout() -> None:
    cuda = "#include <cuda_runtime.h>\nint lane = threadIdx.x % 32;\ncudaStream_t s;\nint x =\n  1;\n"
    hip = "#include <hip_runtime.h>\nint lane = threadIdx.x % warpSize;\nhipStream_t s;\nint x = 1;\n"
    found = hunks.pair_hunks("k.cu", cuda, hip)
    assert [(h.first, h.last) for h in found] == [(2, 2)]


def test_arms_compare_line_by_line() -> None:
    cuda = "a\n#if X\nb\n#endif\nc\n"
    hip = "a\n\n\n\nc\n"
    (h,) = hunks.file_hunks("f.cu", cuda, hip)
    assert [n for n, _ in h.cuda] == [3] and h.hip == []


def test_check_accepts_an_edit_on_a_condition_the_rocm_view_settled(tmp_path: Path) -> None:
    # DeepSpeed fake_quantizer.cu: `#if __CUDA_ARCH__ >= 700 || defined(__HIP_PLATFORM_AMD__)`
    (tmp_path / "cuda").mkdir()
    (tmp_path / "hip").mkdir()
    (tmp_path / "cuda" / "k.cu").write_text("a\n#if __CUDA_ARCH__ >= 700 || 0\nb\n#endif\nc\n")
    (tmp_path / "hip" / "k.cu").write_text("a\n\nb\n\nc\n")
    edit = {"path": "k.cu", "line": "2", "end_line": "2", "kind": "edit"}
    body = {"path": "k.cu", "line": "3", "end_line": "3", "kind": "edit"}
    found = hunks.file_hunks("k.cu", "a\n#if X\nb\n#endif\nc\n", "a\n\nb\n\nc\n")
    problems = hunks.check(found, [edit, body], tmp_path / "cuda", "ARM", tmp_path / "hip")
    assert problems == ["k.cu:3: edit label but the port changed nothing there"]


def test_compare_lists_only_changed_outcomes() -> None:
    before = {
        "x a.cu:1-1 edit": {"class": "warp", "category": "warp-size", "ok": False, "note": "n"},
        "x a.cu:5-5 left-alone": {"class": "warp", "category": "warp-size", "ok": True, "note": "m"},
        "x a.cu:9-9 edit": {"class": "warp", "category": "warp-size", "ok": True, "note": "k"},
    }
    after = {key: dict(value) for key, value in before.items()}
    after["x a.cu:1-1 edit"]["ok"] = True
    after["x a.cu:5-5 left-alone"]["ok"] = False
    changes = accuracy.compare(before, after)
    assert len(changes) == 2
    assert changes[0].startswith("hit (was missed)") and "a.cu:1-1" in changes[0]
    assert changes[1].startswith("quiet (was reported)")


def test_build_files_compare_line_by_line_with_indentation() -> None:
    """A build-file port: a line moved under a new `else:` is changed, an insertion sits on the
    CUDA line it follows, and CUDA -> HIP is not ignored as a rename."""
    before = "if X:\n    pass\ncc.append('-gencode')\nenable_language(CUDA)\nend\n"
    after = "if X:\n    pass\nelse:\n    cc.append('-gencode')\nenable_language(HIP)\nend\nelif(HIP)\n"
    got = hunks.build_hunks("setup.py", before, after)
    assert [(h.first, h.last, bool(h.at)) for h in got] == [(3, 4, False), (5, 5, True)]
    assert hunks.is_build_file("CMakeLists.txt") and hunks.is_build_file("cuda.cmake")
    assert not hunks.is_build_file("kernel.cu")


def test_build_code_bases_name_the_commit_before_the_port_or_the_ported_file() -> None:
    bases = {cb.name: cb for cb in prepare.load_codebases()}
    build = [cb for name, cb in bases.items() if name.endswith("-build")]
    assert len(build) >= 4
    assert all((cb.before and cb.before != cb.commit) or cb.pairs for cb in build)


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_port_in_its_own_repository_under_the_same_name_is_exported(tmp_path: Path) -> None:
    # rccl-tests keeps nccl-tests' file names: each pair is (name, name) in another repository
    import subprocess

    repo = tmp_path / "fork"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "common.cu").write_text("int port;\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "port"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    cb = prepare.CodeBase(
        name="t",
        repo="o/orig",
        commit="0" * 40,
        arm="",
        paths=("src/common.cu",),
        pairs=(("src/common.cu", "src/common.cu"),),
        hip_repo="o/fork",
        hip_commit=head,
    )
    written = prepare.export(cb, repo / ".git", tmp_path / "out", "hip")
    assert [p.read_text() for p in written] == ["int port;\n"]
