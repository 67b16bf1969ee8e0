"""The rule engine on hand-built facts: matching, placeholders, options, suppressions, versions."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipscan.facts import (
    AsmFact,
    CallFact,
    DeclFact,
    DirectiveFact,
    FileFacts,
    FunctionFact,
    IdentFact,
    IncludeFact,
    LaunchFact,
    LiteralFact,
    Loc,
    MemberRefFact,
    SharedSizeFact,
    StringFact,
)
from hipscan.rules import RuleOptions, load_rules
from hipscan.rules.matchers import arg_identifier, int_value

P = "src/k.cu"


def loc(line: int, col: int = 5) -> Loc:
    return Loc(P, line, col)


def lines(_path: str, line: int) -> str:
    return f"  source line {line}  "


@pytest.fixture(scope="module")
def rules():
    return load_rules()


def run(rules, facts: FileFacts, **opts) -> list:
    return rules.apply(facts, RuleOptions(**opts), lines)


def ids(findings) -> list[tuple[str, int]]:
    return sorted((f.rule, f.line) for f in findings)


def test_device_launch_is_found_with_kernel_placeholder(rules):
    facts = FileFacts(path=P)
    facts.launches = [
        LaunchFact("child", loc(7, 5), "global", "parent", ("1", "32")),
        LaunchFact("child", loc(20, 3), "host", "main", ("1", "32")),
    ]
    found = run(rules, facts)
    assert ids(found) == [("HIP101", 7)]
    f = found[0]
    assert (f.path, f.line, f.column) == (P, 7, 5)
    assert "`child`" in f.message and "`parent`" in f.message
    assert f.snippet == "source line 7"
    assert f.category == "dynamic-parallelism" and f.function == "parent"
    assert "{" not in f.message and "{" not in f.fix


def test_runtime_call_only_in_device_code(rules):
    facts = FileFacts(path=P)
    facts.calls = [
        CallFact("cudaDeviceSynchronize", "cudaDeviceSynchronize", loc(3), "global", "k"),
        CallFact("cudaDeviceSynchronize", "cudaDeviceSynchronize", loc(9), "host", "main"),
        CallFact("cudaDeviceSynchronize", "cudaDeviceSynchronize", loc(11), "host-device", "h"),
    ]
    assert ids(run(rules, facts)) == [("HIP102", 3)]


def test_texture_fetch_uses_declarations_of_the_same_tu(rules):
    facts = FileFacts(path=P)
    facts.decls = [
        DeclFact("texRef", "texture<float, 1, cudaReadModeElementType>", loc(1, 44), "file", "var"),
        DeclFact("obj", "cudaTextureObject_t", loc(4, 30), "global", "param"),
    ]
    facts.calls = [
        CallFact("tex1Dfetch", "tex1Dfetch", loc(5), "global", "k", ("texRef", "i")),
        CallFact("tex1Dfetch", "tex1Dfetch", loc(6), "global", "k", ("obj", "i")),
        CallFact("tex1Dfetch", "tex1Dfetch", loc(7), "global", "k", ("unknown", "i")),
    ]
    assert ids(run(rules, facts)) == [("HIP111", 1), ("HIP113", 5)]


def test_inline_asm_names_instruction_and_skips_host_asm(rules):
    facts = FileFacts(path=P)
    facts.asms = [
        AsmFact("bfind.u32 %0, %1;", loc(3), "device", "f", ("bfind.u32",)),
        AsmFact("rdtsc", loc(8), "host", "g", ("rdtsc",)),
        AsmFact("fence.sc.gpu;", loc(12), "device", "f", ("fence.sc.gpu",), (), True),
        AsmFact("movl %%eax, %%ebx", loc(15), "host-device", "hd", ("movl",)),
        AsmFact(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 ...",
            loc(20),
            "device",
            "m",
            ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",),
        ),
    ]
    found = run(rules, facts)
    assert ids(found) == [("HIP201", 3), ("HIP201", 12), ("HIP652", 20)]
    assert "`bfind.u32`" in found[0].message
    # the specific tensor-core rule replaced the generic inline-PTX finding on line 20


def test_literal_roles_decide_warp_size_findings(rules):
    facts = FileFacts(path=P)
    L = LiteralFact
    facts.literals = [
        L(31, "31", loc(1), "global", "k", "binop", "&", "threadIdx.x", "unsigned int"),
        L(32, "32", loc(2), "global", "k", "binop", "/", "n", "int"),  # data size: quiet
        L(32, "32", loc(3), "global", "k", "binop", "/", "blockDim.x", "unsigned int"),
        L(32, "32", loc(4), "global", "k", "binop", "%", "lane_id", "int"),
        L(32, "32", loc(5), "global", "k", "array-dim", "", "tile", "float[32]"),  # tile: quiet
        L(32, "32", loc(6), "global", "k", "binop", "%", "(si + threadIdx.x)", "int"),  # tile index
        L(32, "32", loc(7), "host", "main", "binop", "%", "threadIdx.x", "int"),  # host: quiet
        L(32, "32", loc(8), "global", "k", "compare", "==", "warpSize", "int"),  # quiet
    ]
    found = run(rules, facts)
    assert ids(found) == [("HIP301", 1), ("HIP302", 4), ("HIP303", 3)]
    by_line = {f.line: f for f in found}
    assert by_line[1].confidence == "high"
    assert by_line[4].confidence == "medium"  # a name, not the builtin: block confidence
    assert "`threadIdx.x & 31`" in by_line[1].message


def test_shuffle_offset_needs_a_shuffle_in_the_same_function(rules):
    facts = FileFacts(path=P)
    facts.literals = [
        LiteralFact(16, "16", loc(3), "device", "warpSum", "init", "", "offset", "int"),
        LiteralFact(16, "16", loc(9), "device", "other", "init", "", "offset", "int"),
    ]
    facts.calls = [CallFact("__shfl_down_sync", "__shfl_down_sync", loc(4), "device", "warpSum")]
    assert ("HIP306", 3) in ids(run(rules, facts))
    assert ("HIP306", 9) not in ids(run(rules, facts))


def test_ballot_kept_in_32_bits(rules):
    facts = FileFacts(path=P)
    facts.calls = [
        CallFact("__ballot_sync", "__ballot_sync", loc(2), "device", "v", ("m", "p"), "unsigned"),
        CallFact("__ballot_sync", "__ballot_sync", loc(3), "device", "v", ("m", "p"), "uint64_t"),
    ]
    got = [r for r in ids(run(rules, facts)) if r[0] == "HIP308"]
    assert got == [("HIP308", 2)]


def test_function_attributes(rules):
    facts = FileFacts(path=P)
    facts.functions = [
        FunctionFact("a", "a", loc(1), 3, "global", launch_bounds=("128", "4")),
        FunctionFact("b", "b", loc(5), 7, "global", launch_bounds=("4 * 256",)),
        FunctionFact("c", "c", loc(9), 11, "global", launch_bounds=("256",)),
        FunctionFact("d", "d", loc(13), 15, "global", cluster_dims=("2", "1", "1")),
    ]
    assert ids(run(rules, facts)) == [("HIP551", 1), ("HIP601", 13)]


SET = "cudaFuncSetAttribute"


def test_shared_memory_size_is_evaluated(rules):
    facts = FileFacts(path=P)
    attr = "dynamic-attribute"
    facts.shared_sizes = [
        SharedSizeFact(attr, "k", "96 * 1024", 98304, loc(1), "host", "f"),
        SharedSizeFact(attr, "k", "0xC000", 49152, loc(2), "host", "g"),
        SharedSizeFact(attr, "k", "smem", None, loc(3), "host", "h"),
    ]
    found = run(rules, facts)
    assert ids(found) == [("HIP561", 1), ("HIP562", 3)]
    assert "gfx942" in found[0].message and "fits gfx950" in found[0].message
    # a target with 160 KiB of LDS in scope only: 96 KiB fits
    only_950 = rules.apply(facts, RuleOptions(offload_arch=("gfx950",)), lines)
    assert ids(only_950) == [("HIP562", 3)]


def test_directives_members_includes(rules):
    facts = FileFacts(path=P)
    facts.directives = [
        DirectiveFact("if", "__CUDA_ARCH__ >= 800", loc(1, 1), ("__CUDA_ARCH__",)),
        DirectiveFact("ifdef", "__CUDA_ARCH__", loc(2, 1), ("__CUDA_ARCH__",)),
        DirectiveFact("if", "defined ( __HIP_PLATFORM_AMD__ )", loc(3, 1), ("__HIP_PLATFORM_AMD__",)),
    ]
    facts.members = [
        MemberRefFact("major", "cudaDeviceProp", loc(4), "host", "f", "prop.major >= 7"),
        MemberRefFact("multiProcessorCount", "cudaDeviceProp", loc(5), "host", "f", "x > 1"),
    ]
    facts.includes = [
        IncludeFact("cudnn.h", loc(6, 1), True),
        IncludeFact("cudnn_helpers.h", loc(7, 1), False, resolved="src/cudnn_helpers.h"),
        IncludeFact("cub/cub.cuh", loc(8, 1), True),
    ]
    assert ids(run(rules, facts)) == [
        ("HIP701", 6),
        ("HIP715", 8),
        ("HIP841", 1),
        ("HIP842", 2),
        ("HIP843", 4),
    ]


def test_api_table_rules(rules):
    facts = FileFacts(path=P)
    facts.idents = [
        IdentFact("cudaDeviceFlushGPUDirectRDMAWrites", loc(1), "host", "f"),  # no HIP twin
        IdentFact("cudaMalloc", loc(2), "host", "f"),  # mapped: not watched, not reported
        IdentFact("cudaBindTexture", loc(3), "host", "f"),  # texture rule's name: left to it
        IdentFact("__shfl_down_sync", loc(4), "device", "f"),  # HIP 6.2
        IdentFact("cudaProfilerStart", loc(5), "host", "f"),  # deprecated in HIP
        IdentFact("cudaDeviceFlushGPUDirectRDMAWrites", loc(6), "host", "f", True),  # inactive
    ]
    assert "cudaMalloc" not in rules.watched_identifiers
    assert "cudaDeviceFlushGPUDirectRDMAWrites" in rules.watched_identifiers
    assert ids(run(rules, facts)) == [("HIP901", 1), ("HIP904", 5)]
    # targeting ROCm 6.0, the _sync intrinsics (HIP 6.2) are not there yet
    old = ids(run(rules, facts, rocm_version=(6, 0)))
    assert ("HIP902", 4) in old
    f = next(f for f in run(rules, facts, rocm_version=(6, 0)) if f.rule == "HIP902")
    assert "6.2.0" in f.message and "ROCm 6.0" in f.message


def test_run_time_compilation_strings_and_lost_calls(rules):
    # string patterns reach the front end apart from the watched names
    assert rules.watched_strings and all(not w.startswith('"') for w in rules.watched_identifiers)
    facts = FileFacts(path=P)
    facts.strings = [
        StringFact('"-arch=sm_"', loc(1), "host", "f"),  # NVRTC option for an NVIDIA arch
        StringFact('" --ptx --machine "', loc(2), "host", "f"),  # nvcc command line
        StringFact('" --ptx -arch=sm_"', loc(3), "host", "f"),  # both: the fallback gives way
        StringFact('"-default-device"', loc(4), "host", "f"),  # hiprtc takes it
        StringFact('"#include <cuda_fp16.h>\\n"', loc(5), "host", "f"),  # kernel-source prelude
    ]
    facts.calls = [
        CallFact("nvrtcGetPTX", "nvrtcGetPTX", loc(10), "host", "compile", ("prog", "ptx")),
        CallFact("cuModuleLoadData", "cuModuleLoadData", loc(11), "host", "compile", ("&m", "ptx")),
        CallFact("cuModuleLoadData", "cuModuleLoadData", loc(12), "host", "compile", ("&m", "other")),
    ]
    # a body the parse lost: only the token pass saw these names
    facts.idents = [
        IdentFact("cuModuleLoadData", loc(11), "host", "compile"),  # the call is there: not again
        IdentFact("cuModuleLoadDataEx", loc(20), "file", ""),
        IdentFact("nvrtcGetCUBIN", loc(21), "file", ""),
        # a function the parse kept, naming the entry point without calling it (a dynlink table)
        IdentFact("cuModuleLoadData", loc(22), "host", "load_driver"),
    ]
    assert ids(run(rules, facts)) == [
        ("HIP501", 12),
        ("HIP501", 20),
        ("HIP508", 2),
        ("HIP521", 10),
        ("HIP521", 21),
        ("HIP522", 1),
        ("HIP522", 3),
        ("HIP523", 5),
    ]


def test_deviceptr_arithmetic_declared_in_a_carried_header(rules):
    # the member is declared in a header whose facts another translation unit carries: no
    # declaration here, the front end's operand type decides (OCCA's memory.cpp)
    facts = FileFacts(path=P)
    facts.calls = [
        CallFact(
            "cuMemcpyHtoD",
            "cuMemcpyHtoD",
            loc(1),
            "host",
            "f",
            ("cuPtr + offset", "src", "n"),
            operand_types=("CUdeviceptr", "", ""),
        ),
        CallFact(
            "cuMemcpyDtoH",
            "cuMemcpyDtoH",
            loc(2),
            "host",
            "f",
            ("ptr + offset", "cuPtr", "n"),
            operand_types=("char *", "", ""),
        ),
        CallFact("cuMemcpyHtoD", "cuMemcpyHtoD", loc(3), "host", "f", ("cuPtr + offset", "src", "n")),
    ]
    assert ids(run(rules, facts)) == [("HIP503", 1)]


def test_project_declared_names_are_not_api_uses(rules):
    facts = FileFacts(path=P)
    facts.functions = [FunctionFact("cudaDeviceFlushGPUDirectRDMAWrites", "x", loc(1), 2, "host")]
    facts.idents = [IdentFact("cudaDeviceFlushGPUDirectRDMAWrites", loc(5), "host", "f")]
    assert run(rules, facts) == []


def test_select_ignore_and_severity_override(rules):
    facts = FileFacts(path=P)
    facts.launches = [LaunchFact("child", loc(7), "global", "parent")]
    facts.calls = [CallFact("clock64", "clock64", loc(9), "device", "t")]
    # HIP811 needs cycles turned into time: the clock rate read in the translation unit
    assert ids(run(rules, facts)) == [("HIP101", 7)]
    facts.members = [MemberRefFact("clockRate", "cudaDeviceProp", loc(20), "host", "ms", "p.clockRate * 1e3")]
    assert ids(run(rules, facts)) == [("HIP101", 7), ("HIP811", 9)]
    assert ids(run(rules, facts, select=("timers",))) == [("HIP811", 9)]
    assert ids(run(rules, facts, select=("HIP1",))) == [("HIP101", 7)]
    assert ids(run(rules, facts, select=("device-side-launch",))) == [("HIP101", 7)]
    assert ids(run(rules, facts, ignore=("HIP101",))) == [("HIP811", 9)]
    found = run(rules, facts, severity={"timers": "blocker", "HIP101": "info"})
    assert {f.rule: f.severity for f in found} == {"HIP101": "info", "HIP811": "blocker"}
    with pytest.raises(ValueError):
        RuleOptions(severity={"HIP101": "catastrophic"})


def test_low_confidence_can_be_excluded(rules):
    facts = FileFacts(path=P)
    facts.calls = [CallFact("atomicCAS", "atomicCAS", loc(3), "device", "f", ("&lock", "0", "1"))]
    assert ids(run(rules, facts)) == [("HIP361", 3)]
    assert run(rules, facts, include_low_confidence=False) == []


def test_suppressions(rules):
    facts = FileFacts(path=P)
    facts.launches = [
        LaunchFact("a", loc(3), "global", "p"),
        LaunchFact("b", loc(4), "global", "p"),
    ]
    facts.calls = [CallFact("clock64", "clock64", loc(5), "device", "t")]
    facts.suppressions = {P: {3: frozenset({"HIP101"}), 4: frozenset({"*"}), 5: frozenset({"timers"})}}
    assert run(rules, facts) == []


def test_fixed_in_rocm_gating(tmp_path: Path):
    (tmp_path / "x.toml").write_text(
        RULE.replace('severity = "high"', 'severity = "high"\nfixed_in_rocm = "6.2"')
    )
    rs = load_rules([tmp_path], builtin=False)
    facts = FileFacts(path=P)
    facts.calls = [CallFact("frob", "frob", loc(1), "device", "f", ("1",))]
    assert ids(rs.apply(facts, RuleOptions(rocm_version=(6, 1)), lines)) == [("HIP1001", 1)]
    assert rs.apply(facts, RuleOptions(rocm_version=(6, 2)), lines) == []


RULE = """
[[rule]]
id = "HIP1001"
name = "frob-call"
category = "unmapped-api"
severity = "high"
confidence = "high"
title = "frob"
message = "`{callee}({arg0})` in {function} at {line}:{column}"
explanation = "x"
remediation = "Do not frob. Really."
hipify = "x"
effort = "small"
[[rule.match]]
fact = "call"
callee = ["frob"]
context = "device-code"
"""


def test_user_rule_directory_and_placeholders(tmp_path: Path):
    (tmp_path / "mine.toml").write_text(RULE)
    rs = load_rules([tmp_path])
    assert rs.get("HIP1001") is rs.get("frob-call") is not None
    facts = FileFacts(path=P)
    facts.calls = [CallFact("frob", "frob", loc(4, 9), "device", "f", ("42",))]
    (f,) = rs.apply(facts, RuleOptions(select=("HIP1001",)), lines)
    assert f.message == "`frob(42)` in f at 4:9"
    assert f.fix == "Do not frob."


def test_helpers():
    assert int_value("96*1024") == 98304
    assert int_value("0x18000u") == 98304
    assert int_value("(64 << 10)") == 65536
    assert int_value("n * 4") is None
    assert int_value("1 << 1000") is None
    assert arg_identifier("(const void*)&d_sym") == "d_sym"
    assert arg_identifier("tex[0]") == "tex"
    assert arg_identifier('"name"') is None


def test_apply_on_empty_facts_is_empty(rules):
    assert run(rules, FileFacts(path=P)) == []


def _entry(name: str, **kw):
    from hipscan.apitable import ApiEntry

    base = dict(
        library="runtime",
        section="s",
        kind="function",
        cuda_name=name,
        hip_name="",
        roc_name="",
        cuda_added="",
        cuda_deprecated="",
        cuda_removed="",
        hip_added="",
        hip_deprecated="",
        hip_removed="",
        hip_experimental="",
        unsupported=False,
        no_hip_or_roc=False,
        roc_library="",
    )
    base.update(kw)
    return ApiEntry(**base)


def test_api_statuses_with_a_small_table(rules):
    from hipscan.apitable import ApiTable
    from hipscan.rules import RuleSet

    table = ApiTable(
        {
            "cuGone": _entry("cuGone", hip_name="hipGone", hip_added="1.0.0", hip_removed="6.0.0"),
            "cuExp": _entry("cuExp", hip_name="hipExp", hip_added="6.1.0", hip_experimental="6.1.0"),
            "cuNew": _entry("cuNew", hip_name="hipNew", hip_added="6.3.0"),
            "cuOld": _entry("cuOld", hip_name="hipOld", hip_added="1.0.0", cuda_removed="12.0"),
            "cuNone": _entry("cuNone", unsupported=True, no_hip_or_roc=True, cuda_deprecated="11.0"),
            "cudnnX": _entry("cudnnX", library="cudnn", unsupported=True, no_hip_or_roc=True),
        }
    )
    rs = RuleSet(rules.rules, table=table)
    assert {"cuGone", "cuExp", "cuNew", "cuOld", "cuNone", "cudnnX"} <= rs.watched_identifiers
    facts = FileFacts(path=P)
    facts.idents = [
        IdentFact(n, loc(i + 1), "host", "f")
        for i, n in enumerate(["cuGone", "cuExp", "cuNew", "cuOld", "cuNone", "cudnnX"])
    ]

    def at(version):
        return ids(rs.apply(facts, RuleOptions(rocm_version=version), lines))

    # cuNone is both unsupported and deprecated in CUDA: the lower rule id (HIP901) reports it
    assert at((6, 4)) == [("HIP717", 6), ("HIP901", 5), ("HIP903", 1), ("HIP905", 2), ("HIP906", 4)]
    # before 6.1 the experimental API does not exist yet, before 6.3 neither does cuNew
    assert at((6, 0)) == [
        ("HIP717", 6),
        ("HIP901", 5),
        ("HIP902", 2),
        ("HIP902", 3),
        ("HIP903", 1),
        ("HIP906", 4),
    ]
    assert ("HIP903", 1) not in at((5, 7))  # not removed yet in 5.7


def test_versions_compare_by_value(rules):
    facts = FileFacts(path=P)
    facts.idents = [IdentFact("__shfl_down_sync", loc(4), "device", "f")]  # added in HIP 6.2.0
    assert ids(run(rules, facts, rocm_version=(6, 1))) == [("HIP902", 4)]
    assert run(rules, facts, rocm_version=(6, 2)) == []
    assert run(rules, facts, rocm_version=(6, 2, 0)) == []


def test_once_per_file_rule_lists_later_uses_with_its_one_finding(rules):
    # FP8 types and conversions: one encoding decision per file, each use a place the port edits
    facts = FileFacts(path=P)
    facts.idents = [
        IdentFact("__nv_fp8_e4m3", loc(3), "device", "f"),
        IdentFact("__nv_fp8_e4m3", loc(3, 30), "device", "f"),  # same line: listed once
        IdentFact("__nv_fp8_interpretation_t", loc(7), "device", "g"),
        IdentFact("__nv_cvt_float_to_fp8", loc(9), "device", "g"),
    ]
    found = [f for f in run(rules, facts) if f.rule == "HIP802"]
    assert [f.line for f in found] == [3]
    assert [(r.line, r.role) for r in found[0].related] == [(7, "another use"), (9, "another use")]


def test_libcudacxx_is_one_finding_per_file_with_its_uses_listed(rules):
    # a port aliases `cuda::std` once (mamba) or rewrites each use (QUDA): the include is the one
    # finding and every use in the file is a related location
    facts = FileFacts(path=P)
    facts.includes = [IncludeFact("cuda/std/limits", loc(2), True)]
    facts.idents = [
        IdentFact("cuda::std", loc(5), "device", "f"),
        IdentFact("cuda::std", loc(9), "device", "g"),
    ]
    found = [f for f in run(rules, facts) if f.rule == "HIP716"]
    assert [f.line for f in found] == [2]
    assert [r.line for r in found[0].related] == [5, 9]


def test_a_rule_off_by_default_runs_only_when_selected(rules):
    # managed allocations work on HIP and most ports compile them unchanged: a note on request
    def active(**kw):
        return {r.id for r in rules.active(RuleOptions(**kw))}

    assert "HIP531" not in active()
    assert "HIP532" in active()  # prefetch/advice: on by default
    assert "HIP531" in active(select=("HIP531",))
    assert "HIP531" in active(select=("unified-memory",))
    assert "HIP531" not in active(select=("HIP532",))
    assert "HIP531" not in active(select=("HIP531",), ignore=("HIP531",))
    assert "off by default" in rules.get("HIP531").doc_markdown()


def test_a_colliding_operator_lists_its_calls(rules):
    # every `a *= b` stops compiling on HIP: each is a line a port rewrites (QuEST's kernels)
    facts = FileFacts(path=P)
    facts.functions = [
        FunctionFact(
            "operator*=", "operator*=", loc(3), 3, "host-device", params=("double2 &", "const double2 &")
        )
    ]
    facts.calls = [
        CallFact("operator*=", "operator*=", loc(9, 14), "device", "k"),
        CallFact("operator*=", "operator*=", loc(12, 3), "device", "k"),
        CallFact("operator+", "operator+", loc(13, 3), "device", "k"),
    ]
    found = [f for f in run(rules, facts) if f.rule == "HIP911"]
    assert [f.line for f in found] == [3]
    assert [(r.line, r.role) for r in found[0].related] == [(9, "call"), (12, "call")]
