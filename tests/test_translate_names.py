"""Every name and header the translator can emit exists in the HIP it targets.

Checked against the installed HIP headers (/usr/include/hip; CI installs Debian's
libamdhip64-dev, ROCm 5.2): names the API table dates after the installed release are left out
here (a scan with that --rocm-version reports them, rule HIP902). Skipped where no HIP headers
are installed.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from hipscan.apitable import load_api_table, parse_version
from hipscan.translate.mapping import HIP_VERSIONED, load_hip_map

HIP_INCLUDE = Path("/usr/include/hip")
pytestmark = pytest.mark.skipif(not (HIP_INCLUDE / "hip_version.h").is_file(), reason="no HIP headers")


@cache
def installed_version() -> tuple[int, int]:
    text = (HIP_INCLUDE / "hip_version.h").read_text()
    major = re.search(r"#define\s+HIP_VERSION_MAJOR\s+(\d+)", text)
    minor = re.search(r"#define\s+HIP_VERSION_MINOR\s+(\d+)", text)
    assert major and minor, "hip_version.h without HIP_VERSION_MAJOR/MINOR"
    return int(major.group(1)), int(minor.group(1))


@cache
def hip_identifiers() -> frozenset[str]:
    names: set[bytes] = set()
    for path in HIP_INCLUDE.rglob("*"):
        if path.is_file():
            names |= set(re.findall(rb"\b[A-Za-z_]\w*", path.read_bytes()))
    return frozenset(n.decode() for n in names)


def emitted_hip_names() -> list[tuple[str, str]]:
    """(CUDA name, HIP name) for every HIP runtime/driver/device name the translator writes for
    the installed release (the math libraries have their own headers and releases)."""
    table = load_api_table()
    version = installed_version()
    out = []
    for roc in (False, True):
        hipmap = load_hip_map(roc)
        for cuda, hip in hipmap.names.items():
            entry = table.get(cuda)
            if entry is None or entry.library not in HIP_VERSIONED or hip != entry.hip_name:
                continue
            added = parse_version(entry.hip_added)
            if added is None or added[:2] > version or entry.hip_removed:
                continue
            out.append((cuda, hip))
    return sorted(set(out))


def test_every_emitted_hip_name_is_declared_by_hip() -> None:
    names = emitted_hip_names()
    assert len(names) > 1000  # the check covers the table, not a handful
    ids = hip_identifiers()
    missing = [f"{cuda} -> {hip}" for cuda, hip in names if hip not in ids]
    assert missing == []


def test_translation_specific_names_are_declared_by_hip() -> None:
    """The renames hipmap.toml adds beyond the API table (overloads, typedef tags)."""
    hipmap = load_hip_map(False)
    extra = {name for _, name in hipmap.arity_renames.values()} | set(hipmap.struct_tags.values())
    extra |= {hipmap.names[n] for n in ("cudaHostAlloc",)}
    extra |= {"HIP_SYMBOL", "HIP_KERNEL_NAME", "hipLaunchKernelGGL", "hipHostMallocDefault"}
    assert sorted(extra - hip_identifiers()) == []


def test_every_emitted_hip_header_exists() -> None:
    version = installed_version()
    for roc in (False, True):
        hipmap = load_hip_map(roc)
        for cuda, header in hipmap.headers.items():
            if not header.startswith("hip/"):
                continue
            since = hipmap.header_since.get(header)
            if since and since[:2] > version:
                continue
            assert (HIP_INCLUDE.parent / header).is_file(), f"{cuda} -> {header}"


def test_installed_library_headers_exist() -> None:
    """Library headers (hiprand/hiprand_kernel.h...) of every ROCm library installed here."""
    checked = 0
    for roc in (False, True):
        for cuda, header in load_hip_map(roc).headers.items():
            folder = HIP_INCLUDE.parent / header.split("/")[0]
            if header.startswith("hip/") or "/" not in header or not folder.is_dir():
                continue
            checked += 1
            assert (HIP_INCLUDE.parent / header).is_file(), f"{cuda} -> {header}"
    if not checked:
        pytest.skip("no ROCm library headers installed")
