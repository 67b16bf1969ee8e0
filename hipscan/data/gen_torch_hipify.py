"""Regenerate ``torch_hipify.csv`` from an installed PyTorch (not imported by hipscan itself).

PyTorch C++/CUDA extensions are hipified at build time by PyTorch's own hipify
(``torch.utils.hipify``), whose table (``torch/utils/hipify/cuda_to_hip_mappings.py``) maps some
names that the HIPIFY tables in ``cuda2hip.csv`` list with no HIP counterpart. This keeps those,
and only where the target is a real ROCm name: a HIP or roc* name of the HIPIFY tables, or an
identifier declared in the ROCm HIP headers given with ``--hip-include``. A rename to a name
ROCm does not declare (``CUd3d9DeviceList`` -> ``hipD3D9DeviceList``) fixes nothing and is left
out, as are entries PyTorch marks unsupported.

    python3 hipscan/data/gen_torch_hipify.py [--hip-include /usr/include/hip] > hipscan/data/torch_hipify.csv

Run it with the Python that has ``torch`` installed (a CPU build is enough).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

IDENT = re.compile(r"[A-Za-z_]\w*")
HERE = Path(__file__).resolve().parent


def hipify_table() -> dict[str, dict[str, str]]:
    """cuda2hip.csv: the first row per CUDA name (as hipscan loads it)."""
    out: dict[str, dict[str, str]] = {}
    with open(HERE / "cuda2hip.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            out.setdefault(row["cuda_name"], row)
    return out


def header_identifiers(folder: Path | None) -> set[str]:
    if folder is None or not folder.is_dir():
        return set()
    words: set[str] = set()
    for p in folder.rglob("*.h"):
        words.update(IDENT.findall(p.read_text(encoding="utf-8", errors="replace")))
    return words


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hip-include", type=Path, default=Path("/usr/include/hip"))
    args = ap.parse_args(argv)
    import torch
    from torch.utils.hipify import constants
    from torch.utils.hipify import cuda_to_hip_mappings as mappings

    table = hipify_table()
    real = {r["hip_name"] for r in table.values()} | {r["roc_name"] for r in table.values()}
    real |= header_identifiers(args.hip_include)
    real.discard("")
    rows: dict[str, str] = {}
    for group in mappings.CUDA_TO_HIP_MAPPINGS:
        for cuda, value in group.items():
            value = (value,) if isinstance(value, str) else tuple(value)
            if not IDENT.fullmatch(cuda) or constants.HIP_UNSUPPORTED in value or cuda in rows:
                continue
            entry = table.get(cuda)
            if entry is None or entry["hip_name"] or entry["roc_name"]:
                continue  # unknown to the HIPIFY tables, or mapped there already
            if value[0] in real:
                rows[cuda] = value[0]
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["cuda_name", "hip_name", "torch_version"])
    version = torch.__version__.split("+")[0]
    for cuda in sorted(rows):
        out.writerow([cuda, rows[cuda], version])
    return 0


if __name__ == "__main__":
    sys.exit(main())
