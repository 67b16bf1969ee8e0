"""Regenerate ``default_args.csv``: runtime calls that rely on a default argument HIP lacks.

CUDA's runtime headers give many trailing parameters a default (`__dv(0)` in
``cuda_runtime_api.h``, ``= 0`` on the C++ overloads in ``cuda_runtime.h``), so
``cudaMalloc3DArray(&a, &desc, extent)`` is a complete call. hipify renames the function and keeps
the arguments; where the HIP declaration has no default for that parameter (``hipMalloc3DArray``'s
``flags``), hipcc finds no matching function. This lists each runtime function whose fewest
accepted arguments (over its overloads) is smaller in CUDA than in HIP, with the first release
given where that holds and the first later one where HIP has the default too.

    python3 hipscan/data/gen_default_args.py --cuda-include /usr/local/cuda/include \
        --hip 5.2=/opt/rocm-5.2/include --hip 6.3=/opt/rocm-6.3/include > hipscan/data/default_args.csv

The declarations are read from the header text (comments dropped, one declaration per
``name(...)`` ending in ``;`` or ``{``): the headers are regular, and neither needs to compile here.
Not imported by hipscan itself.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
DECL = re.compile(r"\b((?:cuda|hip)\w+)\s*\(")
DEFAULT = re.compile(r"__dv\s*\(|__dparm\s*\(|=")


def params(text: str, open_at: int) -> tuple[list[str], str] | None:
    """The comma-separated parameters of the call-like text opening at ``open_at`` and what ends
    the declaration after its ``)`` (``;`` or ``{``), or None for an expression."""
    depth, start, out = 0, open_at + 1, []
    for i in range(open_at, len(text)):
        ch = text[i]
        if ch in "(<[":
            depth += 1 if ch != "<" or depth else 0  # template arguments only nest inside parens
        elif ch in ")]":
            depth -= 1
            if depth == 0:
                out.append(text[start:i])
                tail = text[i + 1 : i + 200].lstrip()
                tail = re.sub(r"^(noexcept|const|__attribute__\s*\(\(.*?\)\)|HIP_\w+|__\w+)\s*", "", tail)
                return [p.strip() for p in out if p.strip() and p.strip() != "void"], tail[:1]
        elif ch == "," and depth == 1:
            out.append(text[start:i])
            start = i + 1
    return None


TEMPLATE_HEAD = re.compile(r"template\s*<([^<>]*)>\s*(?:(?:static|inline|__host__)\s+)*\w+\s*$")


def _undeducible_template(before: str, ps: list[str]) -> bool:
    """A function template whose template parameters no function parameter names (HIP's
    `template <class T> hipLaunchCooperativeKernelMultiDevice(hipLaunchParams *, unsigned, unsigned
    = 0)`): a call without explicit template arguments cannot use it, nor its defaults."""
    m = TEMPLATE_HEAD.search(before)
    if not m:
        return False
    names = re.findall(r"(?:class|typename)\s+(\w+)", m.group(1))
    joined = " ".join(ps)
    return bool(names) and not any(re.search(rf"\b{n}\b", joined) for n in names)


def arities(paths: list[Path], prefix: str) -> dict[str, tuple[int, int]]:
    """Per function: (fewest arguments any declaration accepts, most parameters any declares)."""
    out: dict[str, tuple[int, int]] = {}
    for path in paths:
        text = COMMENT.sub(" ", path.read_text(errors="replace"))
        for m in DECL.finditer(text):
            name = m.group(1)
            if not name.startswith(prefix):
                continue
            before = text[max(0, m.start() - 160) : m.start()]
            # a declaration: the function's return type right before its name
            if not re.search(r"(Error_t|error_t|cudaError|hipError_t|CUDARTAPI|__host__|inline)\s*$", before):
                continue
            got = params(text, m.end() - 1)
            if got is None or got[1] not in (";", "{"):
                continue
            ps = got[0]
            if any("..." in p for p in ps):
                continue
            if _undeducible_template(before, ps):
                continue  # `template <class T>` no parameter names: callable only as name<T>(...)
            required = sum(1 for p in ps if not DEFAULT.search(p))
            lo, hi = out.get(name, (1 << 30, 0))
            out[name] = (min(lo, required), max(hi, len(ps)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cuda-include", type=Path, required=True)
    ap.add_argument(
        "--hip",
        action="append",
        required=True,
        metavar="RELEASE=DIR",
        help="a ROCm release and the folder holding its hip/ headers (repeatable, oldest first)",
    )
    ap.add_argument(
        "--skip",
        default="cudaLaunchCooperativeKernel,cudaGetDriverEntryPoint",
        help="functions a rule of their own covers (HIP408; the driver entry-point rule)",
    )
    args = ap.parse_args()
    cuda = arities([args.cuda_include / "cuda_runtime_api.h", args.cuda_include / "cuda_runtime.h"], "cuda")
    releases = []
    for spec in args.hip:
        release, _, folder = spec.partition("=")
        inc = Path(folder)
        releases.append(
            (
                release,
                arities(
                    [inc / "hip" / "hip_runtime_api.h"]
                    + sorted((inc / "hip" / "amd_detail").glob("amd_hip_runtime*.h")),
                    "hip",
                ),
            )
        )
    with (HERE / "cuda2hip.csv").open(newline="") as fh:
        rename = {}
        for row in csv.DictReader(fh):
            if row["library"] == "runtime" and row["kind"] == "function" and row["hip_name"]:
                rename.setdefault(row["cuda_name"], row["hip_name"])
    skip = set(args.skip.split(","))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["cuda_name", "hip_name", "cuda_min_args", "hip_min_args", "seen_in", "fixed_in"])
    for name in sorted(cuda):
        twin = rename.get(name)
        if not twin or name in skip:
            continue
        c_lo = cuda[name][0]
        seen, need, fixed = "", 0, ""
        for release, hip in releases:
            if twin not in hip:
                continue
            if hip[twin][0] > c_lo:
                seen, need, fixed = seen or release, hip[twin][0], ""
            elif seen and not fixed:
                fixed = release
        if seen:
            w.writerow([name, twin, c_lo, need, seen, fixed])
    return 0


if __name__ == "__main__":
    sys.exit(main())
