"""What a one-file run skips when nothing changed: the precompiled shim's set-up (a trial parse)."""

from __future__ import annotations

import uuid
from pathlib import Path

import hipscan.frontend.clang as clang
from hipscan.config import ScanConfig
from hipscan.frontend import collect, discover


def _scan(root: Path) -> list:
    config = ScanConfig(jobs=1)  # the default cache folder: its precompiled shim is reused
    return list(collect(discover([root], config.excludes), config, frozenset()))


def test_precompiled_shim_set_up_only_when_a_file_is_parsed(tmp_path: Path, monkeypatch):
    src = tmp_path / "k.cu"
    src.write_text(f"// {uuid.uuid4()}\n__global__ void k(int *p) {{ p[threadIdx.x] = 1; }}\n")
    first = _scan(tmp_path)
    calls: list[str] = []
    real = clang.build_pch

    def spy(*args, **kwargs):
        calls.append("pch")
        return real(*args, **kwargs)

    monkeypatch.setattr(clang, "build_pch", spy)
    second = _scan(tmp_path)  # every file from the facts cache
    assert calls == []
    assert [(f.path, f.status, f.calls) for f in first] == [(f.path, f.status, f.calls) for f in second]
    src.write_text(src.read_text() + "__global__ void j() {}\n")
    third = _scan(tmp_path)
    assert calls == ["pch"]
    assert [f.status for f in third] == [f.status for f in first]
