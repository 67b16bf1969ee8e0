"""Warp-width provenance: the analysis stage (hipscan/analysis/warp.py), the width fact rules
and how related locations reach the reports."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from hipscan.analysis.warp import derive
from hipscan.facts import (
    CallFact,
    ConstUseFact,
    FileFacts,
    FunctionFact,
    LiteralFact,
    Loc,
    NamedValue,
    RelatedLoc,
    SubscriptFact,
)
from hipscan.rules import RuleFileError, load_rules

sys.path.insert(0, str(Path(__file__).parent))

ROOT = NamedValue("kWarpSize", Loc("w.cuh", 3, 15), 32, "var", "32")
ALIAS = NamedValue("kLanes", Loc("w.cuh", 4, 15), 32, "var", "kWarpSize")


def use(line: int, role: str, value: int = 32, chain=(ALIAS, ROOT), **kw) -> ConstUseFact:
    return ConstUseFact(
        name=chain[0].name if chain else "",
        value=value,
        loc=Loc("k.cu", line, 5),
        context=kw.pop("context", "global"),
        function=kw.pop("function", "k"),
        role=role,
        chain=chain,
        **kw,
    )


def test_one_definition_per_root_with_every_use_related():
    facts = FileFacts(
        path="k.cu",
        uses=[
            use(10, "binop", op="%", other="threadIdx.x"),
            use(11, "compare", value=24, op="<", other="lane"),
            use(12, "launch", op="dim3", context="host", function="run"),
        ],
    )
    widths = derive(facts)
    (definition,) = [w for w in widths if w.sink == "definition"]
    assert definition.root == "kWarpSize" and definition.loc == ROOT.loc
    assert [(r.line, r.role) for r in definition.related] == [
        (10, "operand of % with threadIdx.x"),
        (11, "comparison with lane"),
        (12, "launch shape (dim3)"),
    ]
    sinks = [w for w in widths if w.sink != "definition"]
    assert {s.chain for s in sinks} == {"kLanes <- kWarpSize"}
    assert all(s.related == (RelatedLoc("w.cuh", 3, 15, "definition"),) for s in sinks)
    derived = next(s for s in sinks if s.sink == "compare")
    assert derived.value == 24 and derived.root_value == 32


def test_chain_without_a_width_value_is_not_a_root():
    other = NamedValue("kRows", Loc("k.cu", 1, 1), 8, "var", "8")
    facts = FileFacts(path="k.cu", uses=[use(5, "compare", value=8, chain=(other,))])
    assert derive(facts) == []


def test_guessed_template_default_is_medium():
    param = NamedValue("WARP", Loc("k.cu", 2, 15), 32, "template-param", "32")
    facts = FileFacts(path="k.cu", uses=[use(5, "binop", chain=(param,), guessed=True, op="/")])
    widths = derive(facts)
    assert {w.confidence for w in widths} == {"medium"}


def test_buffer_followed_into_the_helper_it_is_passed_to():
    lit = LiteralFact(32, "32", Loc("k.cu", 20, 24), "global", "k", "array-dim", other="shared")
    facts = FileFacts(
        path="k.cu",
        literals=[lit],
        calls=[CallFact("reduce", "reduce", Loc("k.cu", 22, 3), "global", "k", args=("v", "shared"))],
        subscripts=[
            SubscriptFact("shared", 1, "lane", Loc("k.cu", 8, 3), "device", "reduce"),
            SubscriptFact("other", -1, "lane", Loc("k.cu", 9, 3), "device", "reduce"),
        ],
    )
    (buf,) = derive(facts)
    assert (buf.sink, buf.subscript, buf.via, buf.confidence) == ("array-dim", "lane", "reduce", "medium")


def test_launch_bounds_text_is_read_with_known_names():
    fn = FunctionFact("k", "k", Loc("k.cu", 7, 40), 9, "global", launch_bounds=("kThreads",))
    facts = FileFacts(
        path="k.cu",
        functions=[fn],
        uses=[use(3, "init", value=128, chain=(ROOT,), other="kThreads", context="file", function="")],
    )
    bounds = next(w for w in derive(facts) if w.sink == "launch-bounds")
    assert bounds.value == 128 and bounds.root == "kWarpSize"


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    pytest.importorskip("clang.cindex")
    from hipscan.api import scan
    from hipscan.config import ScanConfig

    root = tmp_path_factory.mktemp("prov")
    (root / "w.cuh").write_text("#pragma once\n#define WARP 32\n")
    (root / "a.cu").write_text(
        '#include "w.cuh"\n__global__ void a(int *o) { o[threadIdx.x % WARP] = 1; }\n'
        "void host_a(int *o) { a<<<1, WARP>>>(o); }\n"
    )
    (root / "b.cu").write_text(
        '#include "w.cuh"\n__global__ void b(float *o) {\n  __shared__ float s[WARP];\n'
        "  s[threadIdx.x % WARP] = o[0];\n  o[0] = s[0];\n}\n"
    )
    return scan([root], ScanConfig(jobs=1, use_cache=False))


def test_header_root_reported_once_with_uses_from_every_file(scanned):
    (finding,) = [f for f in scanned.findings if f.rule == "HIP307"]
    assert (finding.path, finding.line) == ("w.cuh", 2)
    where = {(r.path, r.line) for r in finding.related}
    assert {("a.cu", 2), ("a.cu", 3), ("b.cu", 3), ("b.cu", 4)} <= where


def test_related_locations_in_every_format(scanned):
    from hipscan.report import ReportContext, render

    doc = json.loads(render("json", scanned, ReportContext()))
    (f,) = [f for f in doc["findings"] if f["rule"] == "HIP307"]
    assert {"path": "a.cu", "line": 2, "column": 45, "role": "operand of % with threadIdx.x"} in f["related"]
    sarif = json.loads(render("sarif", scanned, ReportContext()))
    (r,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "HIP307"]
    assert len(r["relatedLocations"]) == len(f["related"])
    from test_report_sarif import validate

    validate(sarif)
    text = render("text", scanned, ReportContext())
    assert "a.cu:2:45: note: used here: operand of % with threadIdx.x" in text
    html = render("html", scanned, ReportContext())
    assert "Related locations" in html and "size of s" in html


WIDTH_RULE = """
[[rule]]
id = "HIP1002"
name = "w"
category = "warp-size"
severity = "low"
confidence = "high"
title = "t"
message = "`{root}` reaches {uses} uses"
explanation = "e"
remediation = "r"
hipify = "h"
effort = "trivial"
[[rule.match]]
fact = "width"
sink = ["definition"]
"""


@pytest.mark.parametrize(
    "old,new,key",
    [
        ('sink = ["definition"]', "sink = 3", "rule[0](HIP1002).match[0].sink"),
        ('sink = ["definition"]', 'sinks = ["definition"]', "rule[0](HIP1002).match[0].sinks"),
        ('sink = ["definition"]', 'reaches_regex = "("', "rule[0](HIP1002).match[0].reaches_regex"),
        ('sink = ["definition"]', "derived = 1", "rule[0](HIP1002).match[0].derived"),
        ("{root}", "{callee}", "rule[0](HIP1002).message"),
    ],
)
def test_malformed_width_keys_name_file_and_key(tmp_path, old, new, key):
    path = tmp_path / "w.toml"
    path.write_text(WIDTH_RULE.replace(old, new))
    with pytest.raises(RuleFileError) as err:
        load_rules([tmp_path], builtin=False)
    assert err.value.path == str(path) and err.value.key == key


def test_confidence_capped_by_the_fact():
    from hipscan.rules import RuleOptions

    rules = load_rules()
    lit = LiteralFact(32, "32", Loc("k.cu", 20, 24), "global", "k", "array-dim", other="shared")
    facts = FileFacts(
        path="k.cu",
        literals=[lit],
        calls=[CallFact("reduce", "reduce", Loc("k.cu", 22, 3), "global", "k", args=("v", "shared"))],
        subscripts=[SubscriptFact("shared", 1, "lane", Loc("k.cu", 8, 3), "device", "reduce")],
    )
    facts.widths = derive(facts)
    found = rules.apply(facts, RuleOptions(select=("HIP305",)), lambda p, n: "")
    assert [(f.rule, f.confidence) for f in found] == [("HIP305", "medium")]
    direct = replace(facts.subscripts[0], param=-1, base="shared", function="k")
    facts.subscripts = [direct]
    facts.widths = derive(facts)
    found = rules.apply(facts, RuleOptions(select=("HIP305",)), lambda p, n: "")
    assert [(f.rule, f.confidence) for f in found] == [("HIP305", "medium")]  # the rule's own
