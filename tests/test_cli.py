"""The command line: output shape, the JSON contract, exit codes, report folder, config errors."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from click.testing import CliRunner

from hipscan.cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample-project"


def run(*args: str, cwd: Path | None = None):
    """Invoke the CLI; with ``cwd``, from a fresh folder inside it (the default report folder
    lands there)."""
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(main, list(args), catch_exceptions=False)
    here = Path.cwd()
    work = Path(tempfile.mkdtemp(dir=cwd))
    os.chdir(work)
    try:
        return runner.invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(here)


def reported(project: Path, rule: str, *extra: str) -> list[list[str]]:
    """[file, line] of each finding of ``rule`` in a fresh scan of ``project``."""
    r = run("scan", str(project), "--no-report", "--jobs", "1", "--no-cache", "--select", rule, *extra)
    return [line.split(":")[:2] for line in r.stdout.splitlines() if rule in line]


def test_text_output_is_compiler_style_with_summary(tmp_path):
    r = run("scan", str(EXAMPLE), "--no-report", "--jobs", "1", "--no-cache")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert (
        "src/quicksort.cu:19:5: HIP101 [blocker] device-side launch of `quicksort` inside `quicksort`"
        in r.stdout
    )
    assert any(line.startswith("src/blur.cu:4:44: HIP111 [high]") for line in lines)
    assert "finding(s)" in lines[-2] and lines[-1].startswith("readiness ")


def test_json_contract_and_fail_on_exit_code(tmp_path):
    out = tmp_path / "scan.json"
    r = run("scan", str(EXAMPLE), "--format", "json", "-o", str(out), "--fail-on", "blocker", "--jobs", "1")
    assert r.exit_code == 1  # the example has blockers
    doc = json.loads(out.read_text())
    assert doc["tool"] == "hipscan" and doc["schema"] == 1 and "version" in doc
    statuses = {f["path"]: f["status"] for f in doc["files"]}
    assert statuses["src/reduce.cu"] == "ok"
    for f in doc["findings"]:
        assert {"rule", "category", "severity", "path", "line", "column", "message", "effort"} <= set(f)
        assert not f["path"].startswith("/")
    assert "summary" in doc
    r = run("scan", str(EXAMPLE), "--format", "json", "-o", str(out), "--fail-on", "none", "--jobs", "1")
    assert r.exit_code == 0


def test_select_and_ignore(tmp_path):
    r = run("scan", str(EXAMPLE), "--no-report", "--select", "dynamic-parallelism", "--jobs", "1")
    rules = {line.split()[1] for line in r.stdout.splitlines() if ": HIP" in line}
    assert rules == {"HIP101", "HIP102", "HIP103"}
    r = run("scan", str(EXAMPLE), "--no-report", "--ignore", "HIP101,HIP102,HIP103", "--jobs", "1")
    assert "HIP10" not in r.stdout


def test_default_run_writes_report_folder(tmp_path):
    r = run("scan", str(EXAMPLE), "--jobs", "1", cwd=tmp_path)
    assert r.exit_code == 0
    reports = list(tmp_path.rglob("hipscan-report/report.html"))
    assert reports and (reports[0].parent / "report.json").is_file()


def test_malformed_rule_file_is_a_usage_error(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "bad.toml").write_text('[[rule]]\nid = "HIP9901"\nname = "x"\ncategory = "no-such-category"\n')
    r = CliRunner().invoke(main, ["scan", str(EXAMPLE), "--rules", str(rules), "--no-report"])
    assert r.exit_code == 2
    assert "bad.toml" in r.stderr and "category" in r.stderr


def test_unknown_config_key_is_a_usage_error(tmp_path):
    project = tmp_path / "p"
    shutil.copytree(EXAMPLE, project)
    (project / "hipscan.toml").write_text("[tool.hipscan]\nno_such_option = 1\n")
    r = CliRunner().invoke(main, ["scan", str(project), "--no-report"])
    assert r.exit_code == 2 and "no_such_option" in r.stderr


def test_config_file_excludes_and_severity(tmp_path):
    project = tmp_path / "p"
    shutil.copytree(EXAMPLE, project)
    (project / "pyproject.toml").write_text(
        '[tool.hipscan]\nexclude = ["src/quicksort.cu"]\nseverity = { HIP111 = "low" }\n'
    )
    r = run("scan", str(project), "--no-report", "--jobs", "1")
    assert "quicksort.cu" not in r.stdout
    assert "HIP111 [low]" in r.stdout


def test_explain_and_rules():
    r = run("explain", "HIP101")
    assert r.exit_code == 0 and "dynamic" in r.stdout.lower()
    assert run("explain", "NOPE").exit_code == 2
    r = run("rules", "--category", "warp-size")
    assert r.exit_code == 0 and "HIP301" in r.stdout


def test_missing_path_is_a_usage_error():
    r = CliRunner().invoke(main, ["scan", "/no/such/dir", "--no-report"])
    assert r.exit_code == 2


def test_compile_commands_flags_are_used(tmp_path):
    project = tmp_path / "p"
    (project / "inc").mkdir(parents=True)
    (project / "inc" / "cfg.h").write_text("#define LANE_MASK 31\n")
    (project / "k.cu").write_text(
        '#include "cfg.h"\n'
        "__global__ void k(int *o) {\n"
        "#ifdef USE_LANES\n"
        "  o[0] = threadIdx.x & 31;\n  o[1] = LANE_MASK;\n"
        "#endif\n"
        "}\n"
    )
    db = [{"directory": str(project), "file": "k.cu", "command": "nvcc -DUSE_LANES -Iinc -c k.cu -o k.o"}]
    build = tmp_path / "build"
    build.mkdir()
    (build / "compile_commands.json").write_text(json.dumps(db))
    without = run("scan", str(project), "--no-report", "--no-cache", "--jobs", "1")
    assert "HIP301" not in without.stdout
    with_db = run("scan", str(project), "-p", str(build), "--no-report", "--no-cache", "--jobs", "1")
    assert "k.cu:4:" in with_db.stdout and "HIP301" in with_db.stdout


def test_missing_project_header_gets_one_note(tmp_path):
    """A header outside the scanned tree is guessed at; the user hears once how to point at it.
    CUDA library headers the shim lacks on purpose (cublas_v2.h) do not count."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "a.cu").write_text(
        '#include "engine/context.h"\n#include <cublas_v2.h>\n__global__ void k(Context c) {}\n'
    )
    (project / "b.cu").write_text("#include <cublas_v2.h>\n__global__ void k2(int *o) {}\n")
    r = run("scan", str(project), "--no-report", "--jobs", "1", "--no-cache")
    notes = [line for line in r.stderr.splitlines() if "not found" in line]
    assert len(notes) == 1 and "1 file(s)" in notes[0] and "engine/context.h from a.cu" in notes[0]
    assert "-I DIR" in notes[0]


def test_project_cuda_switch_is_turned_on_with_a_note(tmp_path):
    """`#if defined(RAJA_ENABLE_CUDA)` comes from a generated config header the scan lacks: the
    CUDA code it guards is what a migration is about, so the switch is defined (and said so)."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "k.cu").write_text(
        "#if defined(RAJA_ENABLE_CUDA)\n__global__ void k(int *o) { o[threadIdx.x & 31] = 1; }\n#endif\n"
    )
    r = run("scan", str(project), "--no-report", "--jobs", "1", "--no-cache")
    assert "RAJA_ENABLE_CUDA defined" in r.stderr and "HIP301" in r.stdout
    r = run("scan", str(project), "--no-report", "--jobs", "1", "--no-cache", "-U", "RAJA_ENABLE_CUDA")
    assert "RAJA_ENABLE_CUDA" not in r.stderr and "HIP301" not in r.stdout


def test_file_wholly_inside_a_feature_switch_is_scanned_with_it_on(tmp_path):
    """Cholla's particles/*.cu sit wholly in `#if defined(PARTICLES) && defined(PARTICLES_GPU)`:
    only builds with those switches compile them, so the scan defines them for that file (and
    says so); a guard with an `#else`, a platform guard and a switch the sources define do not."""
    project = tmp_path / "p"
    project.mkdir()
    body = "__global__ void k(int *o) { o[threadIdx.x & 31] = 1; }\n"
    (project / "feature.cu").write_text(
        "// particles on the GPU\n#if defined(PARTICLES) && defined(PARTICLES_GPU)\n" + body + "#endif\n"
    )
    (project / "other_arm.cu").write_text("#ifdef GRAVITY\n" + body + "#else\nint x;\n#endif\n")
    (project / "windows.cu").write_text("#ifdef _WIN32\n" + body + "#endif\n")
    (project / "defined.cu").write_text("#ifdef COOLING\n" + body + "#endif\n")
    (project / "config.h").write_text("#if 0\n#define COOLING\n#endif\n")
    # a unity build's fragment: the file that includes it is where it is read
    (project / "part.cu").write_text("#ifdef SINGLE_TU\n" + body + "#endif\n")
    (project / "unity.cpp").write_text('#include "part.cu"\nint unity;\n')
    r = run("scan", str(project), "--no-report", "--jobs", "1", "--no-cache", "--select", "HIP301")
    assert [line.split(":")[0] for line in r.stdout.splitlines() if "HIP301" in line] == ["feature.cu"]
    assert "1 file(s) are wholly inside a feature switch" in r.stderr
    assert "feature.cu: PARTICLES, PARTICLES_GPU" in r.stderr
    r = run(
        "scan",
        str(project),
        "--no-report",
        "--jobs",
        "1",
        "--no-cache",
        "--select",
        "HIP301",
        "-U",
        "PARTICLES",
    )
    assert "HIP301" not in r.stdout and "wholly inside" not in r.stderr


def test_names_the_project_defines_for_hip_are_not_findings(tmp_path):
    """exllamav2/ggml pattern: a HIP-only branch (or a vendors/hip.h) redefines the _sync shuffles
    without the mask, so a 32-bit mask at a call is already handled; other calls still count."""
    project = tmp_path / "p"
    (project / "vendors").mkdir(parents=True)
    (project / "compat.cuh").write_text(
        "#ifdef USE_ROCM\n#define __shfl_xor_sync(mask, var, lane) __shfl_xor(var, lane)\n#endif\n"
    )
    (project / "vendors" / "hip.h").write_text("#define __ballot_sync(mask, p) __ballot(p)\n")
    (project / "k.cu").write_text(
        '#include "compat.cuh"\n'
        "__global__ void k(float *o, float v) {\n"
        "  v += __shfl_xor_sync(0xffffffff, v, 16);\n"
        "  unsigned b = __ballot_sync(0xffffffff, v > 0);\n"
        "  o[threadIdx.x] = v + b + __shfl_down_sync(0xffffffff, v, 1);\n"
        "}\n"
    )
    r = run("scan", str(project), "--no-report", "--jobs", "1", "--no-cache", "--select", "HIP351")
    assert [line.split(":")[1] for line in r.stdout.splitlines() if "HIP351" in line] == ["5"]


def test_syncwarp_stand_in_for_hip_quiets_the_calls(tmp_path):
    """mscclpp defines `__syncwarp()` as a wave barrier under its HIP switch: the calls are then
    ported already. Without the stand-in each bare call is reported (before ROCm 7.0)."""
    project = tmp_path / "p"
    project.mkdir()
    kernel = "__global__ void k(float *s) {\n  s[threadIdx.x] += 1.f;\n  __syncwarp();\n}\n"
    (project / "k.cu").write_text('#include "compat.h"\n' + kernel)
    (project / "compat.h").write_text("// nothing for HIP yet\n")
    assert reported(project, "HIP363") == [["k.cu", "4"]]
    assert reported(project, "HIP363", "--rocm-version", "7.0") == []
    (project / "compat.h").write_text(
        "#ifdef __HIP_PLATFORM_AMD__\n#define __syncwarp() __builtin_amdgcn_wave_barrier()\n#endif\n"
    )
    assert reported(project, "HIP363") == []


def test_integer_type_from_a_missing_header_keeps_a_warp_width(tmp_path):
    """Ginkgo's `static constexpr uint32 warp_size = 32` with its generated types header absent:
    `uint32` is declared as an integer for the re-parse, so the width and its uses are seen."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "config.cuh").write_text(
        '#include "ginkgo/core/base/types.hpp"\n'
        "struct config { static constexpr uint32 warp_size = 32; };\n"
        "__global__ void k(float *o) { o[threadIdx.x % config::warp_size] = 1.f; }\n"
    )
    assert reported(project, "HIP307") == [["config.cuh", "2"]]


def test_attribute_macros_from_a_missing_header_are_guessed(tmp_path):
    """RAJA's `RAJA_DEVICE RAJA_INLINE` come from util/macros.hpp; with it absent the device
    function must not read as host code calling device-only functions (HIP835)."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "reduce.hpp").write_text(
        '#include "RAJA/util/macros.hpp"\n'
        "RAJA_DEVICE RAJA_INLINE int bump(unsigned *c) { __threadfence(); return atomicInc(c, 10u); }\n"
        "void host_side(unsigned *c) { __threadfence(); }\n"
        "__global__ void k(unsigned *c) { bump(c); }\n"
    )
    assert reported(project, "HIP835") == [["reduce.hpp", "3"]]


def test_pytorch_extension_parses_without_torch_installed(tmp_path):
    """A CUDA extension's torch/ATen/c10 includes resolve to hipscan's stand-in when no torch is
    on the include path, so at:: types and the AT_DISPATCH body (scalar_t) parse."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "ext.cu").write_text(
        "#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n#include <c10/cuda/CUDAGuard.h>\n"
        "template <typename scalar_t> __global__ void k(scalar_t *o, std::optional<float> s) {\n"
        "  o[threadIdx.x] = s.value();\n}\n"
        "torch::Tensor run(torch::Tensor x) {\n"
        "  const at::cuda::OptionalCUDAGuard guard(x.device());\n"
        "  auto stream = at::cuda::getCurrentCUDAStream();\n"
        '  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "k", ([&] {\n'
        "    k<scalar_t><<<1, 256, 0, stream>>>(x.data_ptr<scalar_t>(), 1.f);\n  }));\n"
        "  return x;\n}\n"
    )
    out = tmp_path / "r.json"
    r = run(
        "scan", str(project), "--no-report", "--jobs", "1", "--no-cache", "--format", "json", "-o", str(out)
    )
    assert r.exit_code == 0
    data = json.loads(out.read_text())
    assert [f["status"] for f in data["files"]] == ["ok"]
    assert ("HIP920", 5) in {(f["rule"], f["line"]) for f in data["findings"]}


def test_offload_arch_from_config_and_command_line(tmp_path):
    from hipscan.config import ConfigError, load_config

    project = tmp_path / "p"
    project.mkdir()
    (project / "hipscan.toml").write_text('[tool.hipscan]\noffload-arch = ["gfx942"]\n')
    assert load_config(project).offload_arch == ("gfx942",)
    (project / "hipscan.toml").write_text('[tool.hipscan]\noffload-arch = ["gfx9999"]\n')
    try:
        load_config(project)
    except ConfigError as exc:
        assert "gfx9999" in str(exc)
    else:
        raise AssertionError("an unknown target must be a configuration error")
    r = CliRunner().invoke(main, ["scan", str(EXAMPLE), "--no-report", "--offload-arch", "gfx999"])
    assert r.exit_code == 2 and "gfx999" in r.stderr and "Traceback" not in r.stderr
