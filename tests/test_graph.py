"""The dependency graph: include edges, kernels, launches, calls and where findings hang."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).parent))
from test_report_sample import sample_result  # noqa: E402

from hipscan.graph import (  # noqa: E402
    build_graph,
    dependents,
    file_dependency_graph,
    graph_summary,
    graph_to_json,
)


def _node(g, kind, name):
    (found,) = [n for n, d in g.nodes(data=True) if d["kind"] == kind and d.get("name") == name]
    return found


def test_nodes_and_edges(tmp_path):
    _, result = sample_result(tmp_path)
    g = build_graph(result)
    kinds = {d["kind"] for _, d in g.nodes(data=True)}
    assert kinds == {"file", "kernel", "device-function", "host-function"}
    reduce_k = _node(g, "kernel", "reduce")
    warp = _node(g, "device-function", "warp_sum")
    run = _node(g, "host-function", "run_reduce")
    parent, child = _node(g, "kernel", "parent"), _node(g, "kernel", "child")
    main = _node(g, "host-function", "main")
    assert g.edges[run, reduce_k]["kind"] == "launch" and g.edges[run, reduce_k]["line"] == 8
    assert g.edges[reduce_k, warp]["kind"] == "call"
    assert g.edges[parent, child]["kind"] == "launch"  # device-side launch
    assert g.edges[main, parent]["kind"] == "launch"
    assert g.edges["file:src/reduce.cu", "file:common/warp.cuh"]["kind"] == "include"
    assert g.edges["file:common/warp.cuh", warp]["kind"] == "defines"
    # host functions that launch nothing are not nodes; their file still is
    assert not [n for n, d in g.nodes(data=True) if d.get("name") == "add"]
    assert "file:src/plain.cpp" in g
    # a header's facts come with every translation unit: one node, one edge each
    assert sum(1 for _, d in g.nodes(data=True) if d.get("name") == "warp_sum") == 1
    assert sum(1 for _, _, d in g.edges(data=True) if d["kind"] == "include") == 4


def test_findings_attach_to_file_and_enclosing_function(tmp_path):
    _, result = sample_result(tmp_path)
    g = build_graph(result)
    by_rule = {f.rule: i for i, f in enumerate(result.findings)}
    warp = _node(g, "device-function", "warp_sum")
    assert sorted(g.nodes[warp]["findings"]) == sorted([by_rule["HIP201"], by_rule["HIP202"]])
    assert g.nodes[_node(g, "kernel", "parent")]["findings"] == [by_rule["HIP101"]]
    assert g.nodes["file:CMakeLists.txt"]["findings"] == [by_rule["HIP901"]]
    assert g.nodes[_node(g, "kernel", "child")]["findings"] == []


def test_file_graph_and_fan_in(tmp_path):
    _, result = sample_result(tmp_path)
    files = file_dependency_graph(build_graph(result))
    assert files.has_edge("src/reduce.cu", "common/warp.cuh")
    assert files.has_edge("common/warp.cuh", "common/config.h")
    assert files.has_edge("common/config.h", "common/warp.cuh")  # the include cycle
    assert dependents(files, "common/warp.cuh") == {
        "common/config.h",
        "src/reduce.cu",
        "src/tree.cu",
    }
    assert dependents(files, "src/tree.cu") == set()


def test_cross_file_call_makes_a_file_dependency(tmp_path):
    """A call into a function defined in another file (extern __device__) is a dependency."""
    from hipscan.facts import CallFact, FileFacts, FunctionFact, Loc
    from hipscan.model import FileResult, ScanResult

    helper = FunctionFact("helper", "helper", Loc("b.cu", 1, 17), 3, "device")
    kernel = FunctionFact("k", "k", Loc("a.cu", 2, 17), 4, "global")
    call = CallFact("helper", "helper", Loc("a.cu", 3, 3), "global", "k")
    result = ScanResult(
        tmp_path,
        [FileResult("a.cu", "ok", 4), FileResult("b.cu", "ok", 3)],
        [],
        [
            FileFacts("a.cu", functions=[kernel], calls=[call]),
            FileFacts("b.cu", functions=[helper]),
        ],
    )
    files = file_dependency_graph(build_graph(result))
    assert list(files.edges()) == [("a.cu", "b.cu")]


def test_node_link_json_round_trips(tmp_path):
    _, result = sample_result(tmp_path)
    g = build_graph(result)
    doc = json.loads(json.dumps(graph_to_json(g)))
    back = nx.node_link_graph(doc, edges="links")
    assert set(back.nodes) == set(g.nodes) and set(back.edges) == set(g.edges)
    assert graph_to_json(build_graph(result)) == graph_to_json(g)  # deterministic


def test_summary(tmp_path):
    _, result = sample_result(tmp_path)
    s = graph_summary(build_graph(result), result)
    assert s["nodes"] == {"device-function": 1, "file": 6, "host-function": 2, "kernel": 3}
    assert s["edges"] == {"call": 2, "defines": 6, "include": 4, "launch": 3}
    assert s["dependency_cycles"] == [["common/config.h", "common/warp.cuh"]]
    assert s["device_side_launchers"] == ["parent"]
    assert s["hot_spots"][0]["worst_severity"] == "blocker"
    assert s["hot_spots"][0]["path"] == "src/tree.cu"


def test_same_named_functions_in_unrelated_files_are_not_linked(tmp_path):
    """``reduce`` defined in two unrelated programs: a call from a third is left unresolved,
    a call from a file that includes one of them goes to that one."""
    from hipscan.facts import CallFact, FileFacts, FunctionFact, Loc
    from hipscan.model import FileResult, ScanResult

    a = FunctionFact("reduce", "reduce", Loc("a/k.cuh", 1, 17), 3, "device")
    b = FunctionFact("reduce", "reduce", Loc("b/k.cuh", 1, 17), 3, "device")
    ka = FunctionFact("ka", "ka", Loc("a/main.cu", 2, 17), 4, "global")
    kc = FunctionFact("kc", "kc", Loc("c/main.cu", 2, 17), 4, "global")
    facts = [
        FileFacts(
            "a/main.cu",
            files=["a/main.cu", "a/k.cuh"],
            functions=[a, ka],
            calls=[CallFact("reduce", "reduce", Loc("a/main.cu", 3, 3), "global", "ka")],
        ),
        FileFacts("b/main.cu", files=["b/main.cu", "b/k.cuh"], functions=[b]),
        FileFacts(
            "c/main.cu",
            files=["c/main.cu"],
            functions=[kc],
            calls=[CallFact("reduce", "reduce", Loc("c/main.cu", 3, 3), "global", "kc")],
        ),
    ]
    files = [FileResult(p, "ok", 4) for p in ("a/main.cu", "b/main.cu", "c/main.cu")]
    g = build_graph(ScanResult(tmp_path, files, [], facts))
    calls = sorted((a, b) for a, b, d in g.edges(data=True) if d["kind"] == "call")
    assert calls == [("fn:a/main.cu:2:ka", "fn:a/k.cuh:1:reduce")]


def test_a_call_into_a_header_another_unit_carries_is_resolved(tmp_path):
    """Which unit carries a shared header's facts depends on which parse finished first; a call
    from a unit that only read the header must still reach the header's definition, even when
    another program defines a function of the same name."""
    from hipscan.facts import CallFact, FileFacts, FunctionFact, Loc
    from hipscan.model import ScanResult

    def fn(path, name, line, space="device"):
        return FunctionFact(name=name, qualname=name, loc=Loc(path, line, 1), end_line=line + 3, space=space)

    carrier = FileFacts(path="a/other.cu", files=["a/other.cu", "a/common.cuh"], inputs=["a/common.cuh"])
    carrier.functions = [fn("a/common.cuh", "lane_of", 2)]
    reader = FileFacts(path="a/main.cu", files=["a/main.cu"], inputs=["a/common.cuh"])
    reader.functions = [fn("a/main.cu", "k", 4, space="global")]
    reader.calls = [CallFact("lane_of", "lane_of", Loc("a/main.cu", 5, 3), "global", "k")]
    unrelated = FileFacts(path="b/lane.cu", files=["b/lane.cu"])
    unrelated.functions = [fn("b/lane.cu", "lane_of", 1)]
    for order in ([carrier, reader, unrelated], [reader, unrelated, carrier]):
        g = build_graph(ScanResult(root=tmp_path, facts=order))
        k = _node(g, "kernel", "k")
        targets = [g.nodes[t]["path"] for t in g.successors(k) if g.edges[k, t]["kind"] == "call"]
        assert targets == ["a/common.cuh"]
