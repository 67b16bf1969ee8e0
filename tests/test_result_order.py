"""Results of parallel parses are taken in the scan's order, so header ownership is stable."""

from __future__ import annotations

from hipscan.facts import FileFacts
from hipscan.frontend import in_order


def test_results_are_handed_on_in_the_given_order():
    arrived = [FileFacts(path=p) for p in ("c.cu", "a.cu", "d.cu", "b.cu")]
    out = [f.path for f in in_order(iter(arrived), ["a.cu", "b.cu", "c.cu", "d.cu"])]
    assert out == ["a.cu", "b.cu", "c.cu", "d.cu"]


def test_unranked_results_come_last_and_none_are_lost():
    arrived = [FileFacts(path=p) for p in ("x.cu", "b.cu", "a.cu")]
    out = [f.path for f in in_order(iter(arrived), ["a.cu", "b.cu"])]
    assert out == ["a.cu", "b.cu", "x.cu"]


def test_same_findings_whichever_worker_finishes_first(tmp_path):
    from hipscan.api import scan
    from hipscan.config import ScanConfig

    (tmp_path / "shared.cuh").write_text(
        "#pragma once\n__device__ inline int lane() { return threadIdx.x % 32; }\n"
    )
    for name in ("a.cu", "b.cu", "c.cu"):
        (tmp_path / name).write_text('#include "shared.cuh"\n__global__ void k(int *x) { x[0] = lane(); }\n')
    runs = {
        tuple(
            sorted(
                (f.rule, f.path, f.line)
                for f in scan([tmp_path], ScanConfig(jobs=j, use_cache=False)).findings
            )
        )
        for j in (1, 2, 3)
    }
    assert len(runs) == 1
