"""The libclang front end on small CUDA files written for these tests (fixtures/frontend)."""

from __future__ import annotations

import faulthandler
import importlib
import os
import signal
import time
from pathlib import Path

import pytest

from hipscan.config import ScanConfig
from hipscan.facts import FileFacts
from hipscan.frontend import collect, discover, parse_file
from hipscan.frontend.clang import make_setup
from hipscan.frontend.parse import ParseJob, read_source
from hipscan.frontend.pool import run_jobs

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "frontend"
PROJECT = ROOT / "project"
WATCHED = frozenset({"cudaDeviceSynchronize", "__ballot_sync", "cudaMalloc"})


@pytest.fixture(scope="module")
def scanned() -> dict[str, FileFacts]:
    sources = discover([PROJECT], ScanConfig().excludes)
    return {f.path: f for f in collect(sources, ScanConfig(jobs=2), WATCHED)}


def where(facts, **match):
    return [(x.loc.line, x.loc.column) for x in facts if all(getattr(x, k) == v for k, v in match.items())]


def test_kernels_and_functions_have_execution_spaces(scanned):
    f = scanned["src/launches.cu"]
    spaces = {fn.name: fn.space for fn in f.functions}
    assert spaces["parent_kernel"] == "global"
    assert spaces["host_side"] == "host"
    assert [fn.is_template for fn in f.functions if fn.name == "templ_kernel"] == [True]


def test_launches_host_and_device_side_with_configuration(scanned):
    launches = {
        (x.kernel, x.context, x.loc.line, x.loc.column): x.config for x in scanned["src/launches.cu"].launches
    }
    assert launches[("child_kernel", "global", 9, 3)] == ("1", "32")
    assert launches[("parent_kernel", "host", 16, 3)] == ("dim3(4)", "dim3(128)", "0", "0")


def test_launch_of_undeclared_or_template_kernel_is_not_lost(scanned):
    """A missing header must not hide launches: the recovery pass and the token fallback."""
    kernels = {(x.kernel, x.context) for x in scanned["src/launches.cu"].launches}
    assert ("undeclared_kernel", "global") in kernels
    assert ("missing_host_kernel", "host") in kernels
    assert ("templ_kernel", "global") in kernels
    assert scanned["src/launches.cu"].status == "parse-errors"


def test_call_inside_macro_argument_has_exact_column(scanned):
    calls = scanned["src/context.cu"].calls
    assert where(calls, callee="cudaDeviceSynchronize") == [(8, 11)]


def test_comments_strings_and_if0_produce_nothing(scanned):
    f = scanned["src/context.cu"]
    assert where(f.idents, name="cudaDeviceSynchronize") == [(8, 11)]
    assert all("trap" not in a.text for a in f.asms)


def test_asm_in_device_pass_branch_is_found(scanned):
    """Read by the device-pass parse or, where that parse cannot place it, by the token scan."""
    asms = {a.text: a for a in scanned["src/context.cu"].asms}
    timer = asms["mov.u32 %0, %%globaltimer_lo;"]
    assert timer.context == "global"
    assert timer.registers == ("%globaltimer_lo",)
    assert (timer.loc.line, timer.loc.column) == (10, 3)
    host = asms["rdtsc"]
    assert host.context == "host" and not host.from_inactive_branch


def test_header_facts_are_taken_once(scanned):
    owners = [path for path, f in scanned.items() if "include/kernels.cuh" in f.files]
    assert len(owners) == 1
    lits = [x for f in scanned.values() for x in f.literals if x.loc.path == "include/kernels.cuh"]
    assert [(x.value, x.op, x.other, x.loc.line) for x in lits] == [(31, "&", "tid", 4)]


def test_declarations_types_storage_and_array_dims(scanned):
    decls = {d.name: d for d in scanned["src/decls.cu"].decls}
    assert decls["texRef"].type == "texture<float, 1, cudaReadModeElementType>"
    assert decls["texRef"].loc.line == 3
    assert "constant" in decls["coeffs"].storage
    assert decls["per_warp"].array_dims == ("32",) and "shared" in decls["per_warp"].storage
    assert decls["obj"].type == "cudaTextureObject_t"
    assert decls["ballot"].init.startswith("__ballot_sync(")


def test_literal_roles_in_device_code(scanned):
    lits = {(x.loc.line, x.value): x for x in scanned["src/decls.cu"].literals}
    assert lits[(7, 32)].role == "array-dim"
    assert lits[(10, 0xFFFFFFFF)].role == "arg" and lits[(10, 0xFFFFFFFF)].op == "__ballot_sync"
    assert lits[(11, 32)].op == "/" and lits[(11, 32)].other == "threadIdx.x"
    calls = {c.callee: c for c in scanned["src/decls.cu"].calls}
    assert calls["__ballot_sync"].result_type == "unsigned int"
    assert [c.args for c in scanned["src/decls.cu"].calls if c.callee == "tex1Dfetch"] == [
        ("texRef", "threadIdx.x"),
        ("obj", "threadIdx.x"),
    ]


def test_member_reference_in_condition(scanned):
    m = scanned["src/decls.cu"].members
    assert [(x.member, x.record, x.expr) for x in m] == [("major", "cudaDeviceProp", "prop.major >= 7")]


def test_suppression_comments(scanned):
    sup = scanned["src/context.cu"].suppressions["src/context.cu"]
    assert sup[16] == frozenset({"HIP303"})
    assert sup[18] == frozenset({"*"})


def test_folded_constants(tmp_path):
    src = tmp_path / "f.cu"
    src.write_text(
        "#define WARP 32\nconstexpr int kWarp = 32;\n__global__ void k(int *o) {\n"
        "  int tid = threadIdx.x;\n  o[0] = tid & (WARP - 1);\n  o[1] = tid % kWarp;\n"
        "  for (int i = 0; i < 32; ++i) o[i] = 0;\n}\n"
    )
    f = parse_file(src, tmp_path)
    got = {(x.loc.line, x.value, x.op, x.role) for x in f.literals}
    assert got == {(5, 31, "&", "binop"), (6, 32, "%", "binop"), (7, 32, "<", "loop-bound")}


def test_result_does_not_depend_on_working_directory(tmp_path, monkeypatch):
    a = parse_file(PROJECT / "src" / "decls.cu", PROJECT)
    monkeypatch.chdir(tmp_path)
    b = parse_file(PROJECT / "src" / "decls.cu", PROJECT)
    assert a.status == b.status == "ok"
    assert a.literals == b.literals and a.decls == b.decls and a.calls == b.calls


def test_bad_files_get_a_status_and_the_scan_goes_on():
    sources = discover([ROOT / "bad"], ScanConfig().excludes)
    status = {f.path: f.status for f in collect(sources, ScanConfig(jobs=2), frozenset())}
    assert status["binary.cu"] == "skipped: binary file"
    assert status["empty.cu"] == "skipped: empty file"
    assert status["broken_link.cu"] == "skipped: broken symbolic link"
    assert status["latin1.cu"] == "ok"
    assert status["good.cu"] == "ok"


def test_oversized_and_unreadable(tmp_path, monkeypatch):
    big = tmp_path / "big.cu"
    big.write_text("int x;\n" * 100)
    data, why = read_source(big, 50)
    assert data is None and why.startswith("skipped: larger than --max-file-size")

    def denied(self):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", denied)
    data, why = read_source(big, 10_000)
    assert data is None and why == "skipped: permission denied"


def _crash_or_hang(job, setup, watched, max_size):
    name = Path(job.path).name
    if name == "crash.cu":
        faulthandler.disable()  # keep pytest's crash dump out of the test output
        os.kill(os.getpid(), signal.SIGSEGV)
    if name == "hang.cu":
        time.sleep(60)
    return FileFacts(path=name)


def test_worker_crash_and_timeout_are_contained(tmp_path):
    for name in ("crash.cu", "hang.cu", "fine.cu", "fine2.cu"):
        (tmp_path / name).write_text("int x;\n")
    jobs = [
        ParseJob(str(tmp_path / n), str(tmp_path)) for n in ("crash.cu", "hang.cu", "fine.cu", "fine2.cu")
    ]
    setup = make_setup(ScanConfig(use_pch=False))
    start = time.monotonic()
    got = {f.path: f.status for f in run_jobs(jobs, setup, frozenset(), 10**6, 2, 2.0, parse=_crash_or_hang)}
    assert time.monotonic() - start < 30
    assert got["crash.cu"].startswith("error: libclang crashed on this file (signal 11)")
    assert got["hang.cu"] == "error: parse timed out after 2 s"
    assert got["fine.cu"] == got["fine2.cu"] == "ok"


def test_discovery_picks_cuda_files_and_honours_excludes(tmp_path):
    (tmp_path / "a.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "host.cpp").write_text("int main() { cudaMalloc(0, 0); }\n")
    (tmp_path / "plain.cpp").write_text("int main() { return 0; }\n")
    # MFEM-style files: kernels written with the project's own macros, and back-end host code
    (tmp_path / "kernels.hpp").write_text("#if defined(__CUDA_ARCH__)\nint tid = 0;\n#endif\n")
    (tmp_path / "solver.cpp").write_text('#include "general/cuda.hpp"\nint f();\n')
    (tmp_path / "comment.cpp").write_text("// mentions __CUDA_ARCH__ and cuda.hpp in prose only\n")
    (tmp_path / "third_party").mkdir()
    (tmp_path / "third_party" / "b.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "CMakeLists.txt").write_text("enable_language(CUDA)\n")
    # a header that hides nvcc's macros from what it includes (Grid's Eigen wrapper)
    (tmp_path / "eigen_wrap.h").write_text('#pragma push_macro("__CUDA_ARCH__")\n#undef __CUDA_ARCH__\n')
    # GNU make's other names (PETSc's per-folder `makefile`s)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "makefile").write_text("SOURCECU = veccuda2.cu\n")
    (tmp_path / "sub" / "GNUmakefile").write_text("NVCC = nvcc\n")
    s = discover([tmp_path], ScanConfig().excludes + ("third_party",))
    assert sorted(p.name for p in s.sources) == ["a.cu", "host.cpp", "solver.cpp"]
    assert sorted(p.name for p in s.headers) == ["eigen_wrap.h", "kernels.hpp"]
    assert sorted(p.name for p in s.build_files) == ["CMakeLists.txt", "GNUmakefile", "makefile"]


def test_discovery_of_files_from_unrelated_trees_walks_only_their_folders(tmp_path, monkeypatch):
    """Files whose only common folder is the filesystem's root bring their own folders' headers,
    not every header on the machine (the walk for a file's project headers stops there)."""
    disc = importlib.import_module("hipscan.frontend.discover")

    for name in ("a", "b", "elsewhere"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.cuh").write_text("#pragma once\n")
    (tmp_path / "a" / "x.cu").write_text('#include "a.cuh"\n__global__ void k() {}\n')
    (tmp_path / "b" / "y.cu").write_text("__global__ void k() {}\n")
    monkeypatch.setattr(disc, "scan_root", lambda paths: Path(tmp_path.anchor))
    s = disc.discover([tmp_path / "a" / "x.cu", tmp_path / "b" / "y.cu"], ScanConfig().excludes)
    headers = {p.name for p in s.project_files if p.suffix == ".cuh"}
    assert headers == {"a.cuh", "b.cuh"}


def test_discovery_follows_macros_of_cuda_headers(tmp_path):
    # jaxlib-style: vendor.h maps gpu* names onto cuDNN; a source that uses one, directly or
    # through another project header, is CUDA code; one that only includes the header is not
    # (Caffe's layers all reach device_alternate.hpp and use none of its CUDA macros)
    (tmp_path / "gpu").mkdir()
    (tmp_path / "gpu" / "vendor.h").write_text(
        "#include <cudnn.h>\n#define gpudnnRNNForward cudnnRNNForward\n"
    )
    (tmp_path / "gpu" / "rnn.h").write_text('#include "gpu/vendor.h"\nint rnn();\n')
    (tmp_path / "gpu" / "rnn.cc").write_text('#include "gpu/rnn.h"\nint f() { return gpudnnRNNForward(); }\n')
    (tmp_path / "gpu" / "direct.cc").write_text(
        '#include "vendor.h"\nint g() { return gpudnnRNNForward(); }\n'
    )
    (tmp_path / "gpu" / "layer.cc").write_text('#include "gpu/rnn.h"\nint h() { return rnn(); }\n')
    (tmp_path / "host.cc").write_text("#include <vendor.h>\nint k() { return gpudnnRNNForward(); }\n")
    s = discover([tmp_path], ScanConfig().excludes)
    assert sorted(p.name for p in s.sources) == ["direct.cc", "rnn.cc"]
    assert sorted(p.name for p in s.headers) == ["vendor.h"]


def test_asm_behind_macros_derived_from_cuda_arch():
    f = parse_file(ROOT / "archmacro" / "mma.cu", ROOT / "archmacro")
    asms = [(a.loc.line, a.instructions, a.from_inactive_branch) for a in f.asms]
    # read by the device-pass parse (__CUDA_ARCH__ defined), which replaces the token scan's reading
    assert asms == [(5, ("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",), False)]


def test_derived_macros_fixpoint():
    from hipscan.frontend.archmacros import derived_macros

    got = derived_macros([ROOT / "archmacro" / "common.cuh"])
    assert {"TURING_MMA_AVAILABLE", "NEW_MMA_AVAILABLE"} <= got and "HOST_ONLY_FEATURE" not in got


def test_blanked_header_bodies_keep_locations_and_change_no_facts(tmp_path, monkeypatch):
    """Later parses blank the bodies of a popular header whose facts are taken; what they report
    about their own code must not change, and a blanked file keeps every line and column."""
    import hipscan.frontend as frontend
    from hipscan.api import scan
    from hipscan.frontend.parse import _blank

    root = tmp_path / "p"
    root.mkdir()
    (root / "common.h").write_text(
        "#pragma once\n"
        "inline int helper(int x) {\n"
        "  int *p;\n"
        "  cudaMallocManaged(&p, x);\n"
        "  return x * 2;\n"
        "}\n"
        "inline int other() {\n#ifdef FAST\n  return 1;\n#endif\n  return 0;\n}\n"
    )
    for i in range(5):
        (root / f"k{i}.cu").write_text(
            f'#include "common.h"\n__global__ void k{i}(int *o) {{ o[threadIdx.x & 31] = helper({i}); }}\n'
        )
    import hipscan.frontend.parse as parse_module

    log = tmp_path / "blanked.log"  # parses run in worker processes: they report through a file
    real = parse_module._blanked_headers

    def spy(job):
        blanked = real(job)
        with open(log, "a") as f:
            f.write(f"{len(blanked)}\n")
        return blanked

    monkeypatch.setattr(parse_module, "_blanked_headers", spy)
    config = ScanConfig(jobs=1, use_cache=False, select=("HIP",))  # HIP531 (off by default) too
    with_blanking = sorted((f.rule, f.path, f.line, f.column) for f in scan([root], config).findings)
    assert "1" in log.read_text().split()  # later files parsed common.h with its body blanked
    monkeypatch.setattr(frontend, "MAX_BLANKED", 0)
    without = sorted((f.rule, f.path, f.line, f.column) for f in scan([root], config).findings)
    assert with_blanking == without and any(f[1] == "common.h" for f in without)

    data = (root / "common.h").read_bytes()
    start = data.index(b"{")
    end = data.index(b"}\n") + 1
    text = _blank(str(root / "common.h"), ((start + 1, end - 1),))
    assert text is not None and len(text) == len(data) and text.count("\n") == data.count(b"\n")
    assert "cudaMallocManaged" not in text and text[start] == "{" and text[end - 1] == "}"
    assert _blank(str(root / "common.h"), ((start, end),)) is None  # not a body's inside: changed file


def test_blanked_body_keeps_its_directives(tmp_path):
    """A body holding `#ifdef` is blanked around its directives, so the header's branches and
    definitions stay what they were; a #pragma goes with the code."""
    from hipscan.frontend import parse_file
    from hipscan.frontend.parse import _blank

    root = tmp_path / "p"
    root.mkdir()
    (root / "h.h").write_text(
        "#pragma once\n"
        "inline int other() {\n  int a = 1;\n#ifdef FAST\n  return a;\n#else\n#define SLOW 1\n#endif\n"
        "#pragma unroll\n  for (;;) {}\n  return 0;\n}\n"
    )
    (root / "a.cu").write_text('#include "h.h"\nint x = SLOW;\n')
    facts = parse_file(root / "a.cu", root)
    text = _blank(str(root / "h.h"), tuple(facts.bodies["h.h"]))
    assert text is not None and len(text) == len((root / "h.h").read_bytes())
    kept = [line.strip() for line in text.splitlines() if line.strip()]
    assert kept == [
        "#pragma once",
        "inline int other() {",
        "#ifdef FAST",
        "#else",
        "#define SLOW 1",
        "#endif",
        "}",
    ]


def test_device_pass_reads_code_only_nvcc_device_pass_compiles(tmp_path):
    """A kernel wrapped in `#if __CUDA_ARCH__ >= N` is parsed with __CUDA_ARCH__ defined: its
    syntax facts join the host parse's, once, and the host branch's stay."""
    src = tmp_path / "k.cu"
    src.write_text(
        "#if __CUDA_ARCH__ >= 700\n"
        "__global__ void k(int *o) { o[threadIdx.x & 31] = __shfl_sync(0xffffffff, 1, 0); }\n"
        "#else\n"
        "__global__ void k(int *o) { o[0] = 2; }\n"
        "#endif\n"
    )
    f = parse_file(src, tmp_path)
    assert sorted((fn.name, fn.loc.line) for fn in f.functions) == [("k", 2), ("k", 4)]
    assert [(c.callee, c.loc.line) for c in f.calls] == [("__shfl_sync", 2)]
    assert [(lit.value, lit.op, lit.loc.line) for lit in f.literals if lit.value == 31] == [(31, "&", 2)]


def test_hip_version_macros_follow_the_targeted_release():
    """HIP_VERSION tests are decided for the targeted ROCm release (a project's own atomicMax kept
    for `HIP_VERSION < 40400000` is code a ROCm 6.4 build skips) and stay unknown without one."""
    from hipscan.platforms import hip_build, hip_choice

    guard = (("if", "!defined(__HIPCC__) || HIP_VERSION < 40400000"),)
    major = (("if", "HIP_VERSION_MAJOR >= 6 && HIP_VERSION_MINOR >= 2"),)
    assert hip_choice(guard, hip_build())[0] is None
    assert hip_choice(guard, hip_build().for_target((6, 4)))[0] is False
    assert hip_choice(guard, hip_build().for_target((4, 3)))[0] is True
    assert hip_choice(major, hip_build().for_target((6, 4)))[0] is True
    assert hip_choice(major, hip_build().for_target((6, 1)))[0] is False


def test_never_defined_macros_for_a_hip_build(tmp_path):
    """A macro whose every #define needs __CUDA_ARCH__ (or a macro only defined under it) is
    never defined in a HIP build; one with a definition a HIP build can take is not, nor one given
    with -D; nvcc's oldest device pass defines what `#ifdef __CUDA_ARCH__` defines."""
    from hipscan.frontend.archmacros import never_defined
    from hipscan.platforms import hip_build, hip_scenario, oldest_device_scenario

    f = tmp_path / "utils.h"
    f.write_text(
        "#if __CUDA_ARCH__ >= 530\n#define PTX_AVAILABLE\n#endif\n"
        "#ifdef PTX_AVAILABLE\n#define FAST_CVT 1\n#endif\n"
        "#ifdef __CUDA_ARCH__\n#define DEVICE_PASS\n#else\n#define HOST_PASS\n#endif\n"
        "#if CUDA_VERSION >= 11000\n#define GIVEN 1\n#endif\n"
        "#ifndef GUARD\n#define GUARD\n#endif\n"
    )
    build = hip_build()
    hip = never_defined([f], lambda a: hip_scenario(build, a), ("GIVEN=1",))
    assert hip == {"PTX_AVAILABLE", "FAST_CVT", "DEVICE_PASS"}
    oldest = never_defined([f], lambda a: oldest_device_scenario(build, a))
    assert {"PTX_AVAILABLE", "FAST_CVT", "HOST_PASS", "GIVEN"} == oldest


def test_names_in_a_namespace_whose_headers_are_absent_keep_the_function(tmp_path):
    # Thrust's headers are not there: `thrust::complex<double>` in a kernel's parameters must not
    # cost the kernel its body (Qiskit Aer's reductions lost every warp finding so)
    from hipscan.api import scan

    src = tmp_path / "k.cu"
    src.write_text(
        "#include <thrust/complex.h>\n"
        "__global__ void reduce(thrust::complex<double>* out, const double* in) {\n"
        "  double re = in[threadIdx.x];\n"
        "  re += __shfl_xor_sync(0xffffffff, re, 16, 32);\n"
        "  thrust::complex<double> c = thrust::complex<double>(re, 0.0);\n"
        "  if ((threadIdx.x & 31) == 0) out[threadIdx.x / 32] = c;\n"
        "}\n"
    )
    found = {(f.rule, f.line) for f in scan([tmp_path], ScanConfig(jobs=1, use_cache=False)).findings}
    assert ("HIP351", 4) in found and ("HIP301", 6) in found


def test_a_call_through_a_vendor_alias_is_a_use_of_the_cuda_api(tmp_path):
    # jaxlib's vendor.h: `#define gpudnnSetRNNDescriptor cudnnSetRNNDescriptor_v8`; the call in
    # rnn_kernels.cc is where its port rewrote the cuDNN call for MIOpen
    from hipscan.api import scan

    (tmp_path / "vendor.h").write_text(
        "#pragma once\n#include <cuda_runtime.h>\n"
        "#define gpudnnSetRNNDescriptor cudnnSetRNNDescriptor_v8\n#define gpuMalloc cudaMalloc\n"
    )
    (tmp_path / "rnn.cu").write_text(
        '#include "vendor.h"\n'
        "int setup(void *d) {\n"
        "  void *p;\n"
        "  gpuMalloc(&p, 16);\n"
        "  return gpudnnSetRNNDescriptor(d, 1, 2, 3);\n"
        "}\n"
    )
    found = {(f.rule, f.path, f.line) for f in scan([tmp_path], ScanConfig(jobs=1, use_cache=False)).findings}
    assert ("HIP717", "rnn.cu", 5) in found  # no MIOpen twin: at the call
    assert not any(path == "rnn.cu" and line == 4 for _rule, path, line in found)  # a plain rename


def test_unknown_name_found_inside_a_macro_argument():
    # clang places the diagnostic at the macro (`CHECK(`); the recovery must see `cublasSdot(`
    # and declare a function, not an int that breaks every call written the same way
    from hipscan.frontend.parse import _name_at

    rest = b"cublasErrcheck(cublasSdot(handle, n, x, 1, y, 1, &r));"
    at = _name_at(rest, "cublasSdot")
    assert rest[at:].startswith(b"cublasSdot(")
    assert _name_at(b"cublasSdot(h)", "cublasSdot") == 0
    assert _name_at(b"CHECK(mycublasSdot2(h))", "cublasSdot") == 0  # no whole word: as before


def test_discovery_takes_included_headers_without_a_suffix(tmp_path):
    # libcu++-style headers (`<cuda/std/atomic>` -> `detail/impl`) are scanned once something
    # includes them; a licence, a script and an unincluded header-looking file are not
    inc = tmp_path / "include" / "lib" / "std"
    (inc / "detail").mkdir(parents=True)
    (inc / "atomic").write_text('// -*- C++ -*-\n#ifndef A\n#define A\n#include "detail/impl"\n#endif\n')
    (inc / "detail" / "impl").write_text("#pragma once\n__device__ int f(int *p) { return *p; }\n")
    (inc / "unused").write_text("#pragma once\n__device__ int g();\n")
    (tmp_path / "LICENSE").write_text("Copyright\n")
    (tmp_path / "configure").write_text("#!/bin/sh\n#include <lib/std/atomic>\n")
    (tmp_path / "use.cu").write_text("#include <lib/std/atomic>\n__global__ void k(int *p) { f(p); }\n")
    s = discover([tmp_path], ScanConfig().excludes)
    assert [p.relative_to(tmp_path).as_posix() for p in s.headers] == ["include/lib/std/detail/impl"]
    assert {p.name for p in s.project_files} == {"use.cu", "atomic", "impl"}


def test_discovery_takes_inline_ptx_as_cuda(tmp_path):
    # libcu++'s generated atomics: device code only through a macro, PTX in every function
    (tmp_path / "atomics.h").write_text(
        'static inline DEVICE void fence() { asm volatile("fence.sc.gpu;" ::: "memory"); }\n'
    )
    (tmp_path / "x86.h").write_text('static inline void pause() { asm volatile("pause" ::: "memory"); }\n')
    s = discover([tmp_path], ScanConfig().excludes)
    assert [p.name for p in s.headers] == ["atomics.h"]


def test_facts_for_launch_shapes_linkage_and_dropped_asm(tmp_path):
    # one file: a launch whose block shape is a local dim3, a dependent call with explicit
    # template arguments, an extern "C" function, PTX in an <nv/target> SM arm, and an asm
    # statement in a declaration clang drops
    src = tmp_path / "k.cu"
    src.write_text(
        "#include <cufft.h>\n"
        "template <int N> __device__ void layer(float *p) { p[N] = 1.f; }\n"
        "template <int N> __global__ void kern(float *p) { layer<N>(p); }\n"
        'extern "C" void plan_(cufftHandle *h) { *h = 0; }\n'
        "void run(float *p) {\n"
        "  const dim3 threads = {32u, 8, 1};\n"
        "  kern<2><<<4, threads>>>(p);\n"
        "}\n"
        "__device__ void f() {\n"
        '  NV_IF_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.wait_all;");))\n'
        "}\n"
        'static inline UNKNOWN_ATTR(1) void g() @ { asm volatile("membar.gl;"); }\n'
    )
    f = parse_file(src, tmp_path)
    (launch,) = f.launches
    assert (launch.kernel, launch.block_init, launch.block_at.line) == ("kern", "{32u, 8, 1}", 6)
    assert ("layer", "kern") in {(c.callee, c.function) for c in f.calls}
    linkage = {fn.name: fn.c_linkage for fn in f.functions}
    assert linkage["plan_"] and not linkage["run"]
    asms = {a.loc.line: a for a in f.asms}
    assert asms[10].arch_arm == "NV_PROVIDES_SM_80"
    assert (asms[12].instructions, asms[12].function) == (("membar.gl",), "g")
