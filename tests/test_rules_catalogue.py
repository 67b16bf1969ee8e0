"""The built-in catalogue: coverage of every category, complete documentation, docs in sync."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hipscan.rules import CATEGORIES, load_rules
from hipscan.rules.docs import DEFAULT_OUTPUT, render
from hipscan.rules.evaluate import expected_findings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fixtures" / "rules"


@pytest.fixture(scope="module")
def rules():
    return load_rules()


def test_size_and_every_category_covered(rules):
    assert len(rules.rules) >= 40
    assert {r.category for r in rules.rules} == set(CATEGORIES)
    assert [r.id for r in rules.rules] == sorted(r.id for r in rules.rules)


def test_every_rule_is_documented(rules):
    for r in rules.rules:
        for field in ("title", "message", "explanation", "remediation", "hipify"):
            assert getattr(r, field).strip(), (r.id, field)
        page = r.doc_markdown()
        assert page.startswith(f"## {r.id} `{r.name}`")
        for heading in ("What it finds", "Why it breaks on ROCm", "What to do", "What hipify does"):
            assert f"### {heading}" in page, (r.id, heading)
        assert f"confidence {r.confidence}" in page and f"effort {r.effort}" in page


def test_rules_files_one_per_category():
    names = {p.stem for p in (ROOT / "rules").glob("*.toml")}
    assert names == set(CATEGORIES)
    for path in (ROOT / "rules").glob("*.toml"):
        cats = set(re.findall(r'(?m)^category = "([^"]+)"', path.read_text()))
        assert cats == {path.stem}, path.name


def test_every_rule_has_a_labelled_fixture(rules):
    labelled = {rule for _, _, rule in expected_findings(CORPUS)}
    # The API-table rules whose trigger depends on the target release are tested in
    # test_rules_engine with hand-built facts.
    untested = {r.id for r in rules.rules} - labelled - {"HIP903", "HIP905", "HIP906", "HIP717"}
    assert not untested, sorted(untested)


def test_docs_rules_md_is_up_to_date(rules):
    assert DEFAULT_OUTPUT.exists(), "run: python -m hipscan.rules.docs"
    assert DEFAULT_OUTPUT.read_text(encoding="utf-8") == render(rules), (
        "docs/rules.md is out of date: run python -m hipscan.rules.docs"
    )


def test_watched_identifiers_are_exact_names(rules):
    watched = rules.watched_identifiers
    # a name or a qualified name (thrust::cuda::par), which the token pass matches token by token,
    # a namespace's every name (mgpu::*), ".member" for a member a rule reads wherever it is
    # read, "&call" for a call whose written value is followed, or "(call" for one whose
    # argument types are kept (no token is spelled so), or "(re:<pattern>" for callees named by a
    # pattern the API table cannot list (MAGMA's magma_z* routines)
    names = [n for n in watched if not n.startswith("(re:")]
    assert all(re.fullmatch(r"[.&(]?[A-Za-z_]\w*(::[A-Za-z_]\w*)*(::\*)?", n) for n in names)
    assert "(re:^magma(blas)?_[cz][a-z]\\w*$" in watched
    assert "mgpu::*" in watched
    assert ".sharedMemPerBlockOptin" in watched
    assert "&cudaRuntimeGetVersion" in watched
    assert "(cublasZgemm" in watched and "(cudaHostGetDevicePointer" in watched
    assert "cudaGraphConditionalHandleCreate" in watched  # a catalogue ident rule
    assert "cudaMalloc" not in watched  # mapped one-to-one: nothing to report


def test_explain_lookup_by_id_and_name(rules):
    assert rules.get("HIP101").name == "device-side-launch"
    assert rules.get("hip101") is rules.get("device-side-launch")
    assert rules.get("HIP0") is None


def test_catalogue_rules_have_examples(rules):
    for r in rules.rules:
        if r.is_api_rule:
            continue
        assert r.example_cuda.strip() and r.example_hip.strip(), r.id
        page = r.doc_markdown()
        assert "```cuda" in page and "```cpp" in page
