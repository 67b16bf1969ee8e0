"""The labelled corpus under fixtures/rules, scanned with the real front end and rule engine.

Every ``// expect: RULE`` marker must produce exactly that finding on that line, and nothing
else may be reported: the near misses in the corpus (comments, strings, ``#if 0``, host asm,
``warpSize``-correct code, tile sizes) must stay quiet.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hipscan.config import ScanConfig
from hipscan.rules.evaluate import actual_findings, expected_findings, render, score

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "rules"

pytest.importorskip("clang.cindex")


@pytest.fixture(scope="module")
def corpus_result():
    return actual_findings(CORPUS, ScanConfig(jobs=2))


def test_every_corpus_file_parsed(corpus_result):
    _, failed = corpus_result
    assert failed == []


def test_corpus_findings_match_markers_exactly(corpus_result):
    actual, _ = corpus_result
    expected = expected_findings(CORPUS)
    assert len(expected) >= 100
    scores = score(expected, actual)
    missing = sorted(expected - actual)
    unexpected = sorted(actual - expected)
    assert not missing and not unexpected, render(scores, verbose=True)


def test_markers_parse():
    found = expected_findings(CORPUS)
    assert ("warp-size/lanes.cu", 9, "HIP301") in found
    assert ("build-system/Makefile", 1, "HIP952") in found and (
        "build-system/Makefile",
        1,
        "HIP954",
    ) in found
