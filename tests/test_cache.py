"""The facts cache: an unchanged tree is not parsed again; a changed header invalidates its users."""

from __future__ import annotations

import shutil
from pathlib import Path

import hipscan.frontend as frontend
from hipscan.config import ScanConfig
from hipscan.frontend import collect, discover

PROJECT = Path(__file__).resolve().parent.parent / "fixtures" / "frontend" / "project"


def _scan(root: Path, cache: Path) -> dict:
    config = ScanConfig(jobs=1, cache_dir=str(cache))
    sources = discover([root], config.excludes)
    return {f.path: f for f in collect(sources, config, frozenset({"cudaDeviceSynchronize"}))}


def test_rescan_uses_cache_and_header_change_invalidates(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    first = _scan(root, tmp_path / "cache")

    parsed: list[str] = []
    real = frontend.run_jobs

    def counting(jobs, *args, **kwargs):
        jobs = list(jobs)
        parsed.extend(Path(j.path).name for j in jobs)
        return real(jobs, *args, **kwargs)

    monkeypatch.setattr(frontend, "run_jobs", counting)
    second = _scan(root, tmp_path / "cache")
    assert parsed == []
    assert {k: (v.literals, v.launches, v.calls) for k, v in first.items()} == {
        k: (v.literals, v.launches, v.calls) for k, v in second.items()
    }

    header = root / "include" / "kernels.cuh"
    header.write_text(header.read_text().replace("tid & (WARP_LANES - 1)", "tid % WARP_LANES"))
    third = _scan(root, tmp_path / "cache")
    assert sorted(parsed) == ["context.cu", "decls.cu", "launches.cu"]  # all include the header
    lits = [x for f in third.values() for x in f.literals if x.loc.path == "include/kernels.cuh"]
    assert [(x.value, x.op) for x in lits] == [(32, "%")]


def test_old_precompiled_headers_are_pruned(tmp_path):
    import os

    from hipscan.frontend.clang import PCH_KEEP, _prune_pchs

    for i in range(PCH_KEEP + 3):
        pch = tmp_path / f"shim-{i:02d}.pch"
        pch.write_bytes(b"x")
        pch.with_suffix(".h").write_text("")
        os.utime(pch, (1000 + i, 1000 + i))
    (tmp_path / "shim-orphan.h").write_text("")
    keep = tmp_path / "shim-00.pch"  # the one just built or used, whatever its age
    _prune_pchs(tmp_path, keep)
    left = sorted(p.name for p in tmp_path.glob("*.pch"))
    assert len(left) == PCH_KEEP and "shim-00.pch" in left
    assert f"shim-{PCH_KEEP + 2:02d}.pch" in left  # the newest stay
    assert sorted(p.name for p in tmp_path.glob("*.h")) == [n.replace(".pch", ".h") for n in left]
