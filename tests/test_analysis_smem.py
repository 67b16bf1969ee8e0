"""Shared-memory budgets from hand-built facts: constants, kernel sums, opt-in tests, targets."""

from __future__ import annotations

import pytest

from hipscan.analysis.smem import Constants, shared_budgets, targets_in_scope
from hipscan.facts import CallFact, DeclFact, FileFacts, FunctionFact, Loc, SharedSizeFact

P = "k.cu"


def loc(line: int) -> Loc:
    return Loc(P, line, 1)


def size(kind: str, kernel: str, expr: str, value, line: int, function: str = "run", ctx: str = "host"):
    return SharedSizeFact(kind, kernel, expr, value, loc(line), ctx, function)


def test_constants_resolve_traits_members_and_refuse_ambiguous_names():
    facts = FileFacts(path=P)
    facts.decls = [
        DeclFact("kBlockM", "const int", loc(1), "file", "var", init="128"),
        DeclFact("kSmem", "const int", loc(2), "file", "var", init="kBlockM * 64 * sizeof(float)"),
        DeclFact("kTwice", "const int", loc(3), "file", "var", init="1024"),
        DeclFact("kTwice", "const int", loc(4), "file", "var", init="2048"),
    ]
    consts = Constants(facts)
    assert consts.value("Traits::kSmem") == 128 * 64 * 4
    assert consts.value("kSmem + 16u") == 128 * 64 * 4 + 16
    assert consts.value("kTwice") is None  # two traits with different values: no guess
    assert consts.value("n * 4") is None


def test_kernel_budget_adds_static_arrays_of_its_device_functions():
    facts = FileFacts(path=P)
    facts.functions = [
        FunctionFact("k", "k", loc(1), 9, "global"),
        FunctionFact("helper", "helper", loc(10), 19, "device"),
    ]
    facts.calls = [CallFact("helper", "helper", loc(2), "global", "k")]
    facts.shared_sizes = [
        size("static", "", "float[4096]", 16384, 3, "k", "global"),
        size("static", "", "float[8192]", 32768, 11, "helper", "device"),
        size("launch", "k", "24 * 1024", 24576, 30),
    ]
    budgets = {b.kind: b for b in shared_budgets(facts)}
    assert budgets["launch"].bytes == 24576 + 16384 + 32768
    assert budgets["static"].bytes == 16384 + 32768 and budgets["static"].kernel == "k"


def test_opt_in_test_values_an_attribute_clang_could_not():
    facts = FileFacts(path=P)
    facts.shared_sizes = [
        size("opt-in", "", "smem", 98304, 1),
        size("dynamic-attribute", "k", "smem", None, 2),
        size("launch", "k", "smem", None, 3),
    ]
    budgets = shared_budgets(facts)
    assert [(b.kind, b.bytes) for b in budgets] == [("dynamic-attribute", 98304)]
    assert "opt-in" in budgets[0].how


def test_targets_default_and_chosen():
    default = dict(targets_in_scope())
    assert default["gfx942"] == 64 * 1024 and default["gfx950"] == 160 * 1024
    assert targets_in_scope(("gfx90a:xnack+",)) == (("gfx90a", 65536),)
    with pytest.raises(ValueError, match="gfx999"):
        targets_in_scope(("gfx999",))
