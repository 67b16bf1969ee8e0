"""Regenerate ``paste_missing.csv``: runtime names a `hip##x` macro arm would build wrongly.

A wrapper that pastes a prefix onto API names (`#define GPU_PREFIX(x) cuda##x`) is ported by
pasting `hip` instead. That builds HIP's name wherever HIP's name is CUDA's with `hip` for
`cuda`; where HIP names it differently (`cudaPointerAttributes` is `hipPointerAttribute_t`) the
pasted name may still exist (`hipErrorMemoryAllocation` is an enumerator of HIP's too) or not. This
lists, for the runtime and driver names of ``cuda2hip.csv``, each name the prefix swap builds
that differs from HIP's and that the HIP headers do not declare at all.

    python3 hipscan/data/gen_paste_missing.py --hip-include /path/to/include > hipscan/data/paste_missing.csv

``--hip-include`` is the folder holding ``hip/`` (with ``amd_detail/``). Not imported by hipscan.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
PREFIXES = ("cuda", "CUDA", "cu", "CU")  # the longest first: `cudaMalloc` pastes onto `cuda`


def swap(prefix: str) -> str:
    """The HIP prefix hipify's convention puts for a CUDA one (cuda/cu -> hip, CUDA/CU -> HIP)."""
    return "HIP" if prefix.isupper() else "hip"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hip-include", type=Path, required=True)
    args = ap.parse_args()
    declared: set[str] = set()
    for path in sorted((args.hip_include / "hip").rglob("*.h")):
        declared.update(re.findall(r"[A-Za-z_]\w*", COMMENT.sub(" ", path.read_text(errors="replace"))))
    rows = {}
    with (HERE / "cuda2hip.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            name, hip = row["cuda_name"], row["hip_name"]
            if row["library"] not in ("runtime", "driver") or not hip:
                continue
            prefix = next((p for p in PREFIXES if name.startswith(p) and len(name) > len(p)), None)
            if prefix is None:
                continue
            pasted = swap(prefix) + name[len(prefix) :]
            if pasted != hip and pasted not in declared:
                rows.setdefault(pasted, (name, prefix, hip))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["pasted_hip", "cuda_name", "prefix", "hip_name"])
    for pasted, (name, prefix, hip) in sorted(rows.items()):
        w.writerow([pasted, name, prefix, hip])
    return 0


if __name__ == "__main__":
    sys.exit(main())
