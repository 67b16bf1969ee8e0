"""Config headers the build generates from a template (`config.h.in`): read from the template."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipscan.api import scan
from hipscan.config import ScanConfig
from hipscan.frontend.confighdr import generated_path, render

pytest.importorskip("clang.cindex")

TEMPLATE = """#ifndef PROJ_CONFIG_H
#define PROJ_CONFIG_H
#cmakedefine PROJ_HAVE_MPI
#cmakedefine01 PROJ_USE_FAST
#define PROJ_VERSION_MAJOR @PROJ_VERSION_MAJOR@
#define PROJ_NAME "${PROJECT_NAME}"
#undef PROJ_WITH_CUDA
typedef int proj_int_t;
#endif
"""

# the kernel's body uses the config header's type: without the header clang drops the body
KERNEL = """#include "proj_config.h"
#include <cuda_runtime.h>
__global__ void count(proj_int_t *out) {
#ifdef PROJ_WITH_CUDA
  out[threadIdx.x] = __popc(__ballot_sync(0xffffffff, out[threadIdx.x] > 0));
#endif
}
"""


def test_render_turns_every_option_off():
    text = render(TEMPLATE.encode())
    assert "/* #undef PROJ_HAVE_MPI */" in text
    assert "#define PROJ_USE_FAST 0" in text
    assert "#define PROJ_VERSION_MAJOR 0" in text and '"0"' in text
    assert "/* #undef PROJ_WITH_CUDA */" in text  # a switch given with -D stays as given
    assert generated_path(Path("include/proj_config.h.in")) == Path("include/proj_config.h")
    assert generated_path(Path("cfg.h.cmake")) == Path("cfg.h")
    assert generated_path(Path("CMakeLists.txt.in")) is None


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "include").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "include" / "proj_config.h.in").write_text(TEMPLATE)
    (tmp_path / "src" / "k.cu").write_text(KERNEL)
    return tmp_path


def test_scan_reads_the_template_and_keeps_the_projects_switch(tmp_path):
    root = _tree(tmp_path)
    result = scan([root], ScanConfig(jobs=1, use_cache=False, defines=("PROJ_WITH_CUDA",)))
    assert result.config_stand_ins == ["include/proj_config.h.in"]
    (k,) = [f for f in result.files if f.path == "src/k.cu"]
    assert k.status == "ok", k.diagnostics
    # the ballot in the kernel's body is seen: the body parsed, and PROJ_WITH_CUDA stayed defined
    assert any(f.path == "src/k.cu" and f.line == 5 for f in result.findings)
    assert not (root / "include" / "proj_config.h").exists()  # nothing written into the tree


def test_a_real_header_wins_over_the_template(tmp_path):
    root = _tree(tmp_path)
    (root / "include" / "proj_config.h").write_text("typedef long proj_int_t;\n")
    result = scan([root], ScanConfig(jobs=1, use_cache=False))
    assert result.config_stand_ins == []


def test_the_cache_sees_a_changed_template(tmp_path):
    root = _tree(tmp_path / "tree")
    config = ScanConfig(jobs=1, cache_dir=str(tmp_path / "cache"))
    first = scan([root], config)
    assert [f.status for f in first.files] == ["ok"]
    (root / "include" / "proj_config.h.in").write_text(TEMPLATE.replace("typedef int", "typedef broken"))
    second = scan([root], config)
    assert [f.status for f in second.files] == ["parse-errors"]
