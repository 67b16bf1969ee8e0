"""Calibrate the effort model on CUDA->HIP ports whose person-time was reported, and print the table.

    python3 benchmarks/effort_anchors.py \\
        --anchor cholla=/path/to/cholla --anchor specfem3d=/path/to/specfem3d \\
        --anchor caffe=/path/to/caffe --anchor quda=/path/to/quda [--work DIR] [--rescan]

Each PATH is a local git checkout (or bare git dir) of the code base; nothing is fetched. The
commit scanned and the scope are fixed below (the commit before each project's HIP port, see
docs/effort.md); the scope is read from the repository with ``git archive COMMIT -- SCOPE`` into
``--work`` (default /tmp/hipscan-anchors), so the checkout's own work tree may be at any commit.
``NAME=PATH@COMMIT`` scans another commit instead.

A scan (front end + rules) is saved next to the extracted tree and re-used while the code that
produces findings is unchanged (its key hashes hipscan's front end, rules and rule files, not the
effort model or the reports), so re-running after an effort-model change takes seconds; after a
rule change the anchors are scanned again. ``--rescan`` forces it. ``--profile FILE`` lays an
effort profile over the built-in one, ``--rocm-version X.Y`` prices for that release.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import pickle
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipscan.api import scan  # noqa: E402
from hipscan.config import ScanConfig, parse_version  # noqa: E402
from hipscan.effort import estimate, load_profile  # noqa: E402
from hipscan.graph import build_graph  # noqa: E402
from hipscan.rules import load_rules  # noqa: E402


@dataclass(frozen=True)
class Anchor:
    name: str
    repo: str  # for the table
    commit: str  # the commit before the project's HIP port
    scope: tuple[str, ...]  # paths read from the commit; () = the whole tree
    exclude: tuple[str, ...]  # globs left out of the scan
    defines: tuple[str, ...]  # -D the project's build passes (a switch its sources never define)
    reported: float  # person-days the port's authors reported
    reported_text: str
    source: str  # where the figure was published


# The public record (docs/effort.md, "Calibration"): AMD lab notes "Application portability with
# HIP", Figure 1, and AMD's 2016 HIP/Caffe slides.
ANCHORS = (
    Anchor(
        "cholla",
        "cholla-hydro/cholla",
        "eb224b5d749c0b7a84826f081dfc4ad4db8ac813",
        (),
        (),
        ("CUDA",),  # Makefile: CUDA = -DCUDA; every GPU file is inside #ifdef CUDA
        2.0,
        "a couple of days",
        "AMD lab notes, Application portability with HIP, Fig. 1",
    ),
    Anchor(
        "specfem3d",
        "SPECFEM/specfem3d",
        "72ff4876",
        ("src/cuda", "Makefile.in", "configure.ac", "flags.guess"),
        (),
        (),
        1.0,
        "a single day",
        "AMD lab notes, Application portability with HIP, Fig. 1",
    ),
    Anchor(
        "caffe",
        "BVLC/caffe",
        "42cd785e",
        (),
        (),
        (),
        5.0,
        "< 1 week",
        "AMD HIP/Caffe slides (2016): 55,000+ lines, less than 1 week developer time",
    ),
    Anchor(
        "quda",
        "lattice/quda",
        "v0.8.0",
        ("lib", "include", "CMakeLists.txt", "Makefile", "configure.ac", "make.inc.in"),
        (),
        (),
        21.0,
        "21 days",
        "AMD lab notes, Application portability with HIP, Fig. 1",
    ),
)

# What decides the findings: a change here invalidates saved scans (the effort model does not).
SCAN_INPUTS = ("hipscan/frontend", "hipscan/rules", "rules", "hipscan/data/platforms.toml")
SCAN_INPUT_FILES = (
    "api.py",
    "facts.py",
    "platforms.py",
    "ppexpr.py",
    "apitable.py",
    "vendored.py",
    "hipbuild.py",
)


def scan_key(config: ScanConfig) -> str:
    h = hashlib.sha256(repr(sorted(vars(config).items())).encode())
    paths = [ROOT / p for p in SCAN_INPUTS] + [ROOT / "hipscan" / f for f in SCAN_INPUT_FILES]
    paths += [ROOT / "hipscan" / "data" / n for n in ("vendored.toml", "hip_build.toml")]
    for p in paths:
        files = sorted(p.rglob("*")) if p.is_dir() else [p]
        for f in files:
            if f.is_file() and "__pycache__" not in f.parts:
                h.update(str(f.relative_to(ROOT)).encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


class AnchorError(Exception):
    """An anchor's repository or commit cannot be read: one line, exit status 2."""


def git(repo: Path, *args: str) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    if proc.returncode:
        why = proc.stderr.decode(errors="replace").strip().splitlines() or [f"exit {proc.returncode}"]
        raise AnchorError(f"{repo}: git {' '.join(args[:2])}: {why[-1]}")
    return proc.stdout


def extract(anchor: Anchor, repo: Path, commit: str, work: Path) -> Path:
    """The anchor's scope at ``commit``, read out of the local repository (nothing fetched)."""
    full = git(repo, "rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()
    dest = work / f"{anchor.name}-{full[:8]}"
    if (dest / ".complete").exists():
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile() as tmp:
        args = ["archive", "--format=tar", full]
        if anchor.scope:
            present = [p for p in anchor.scope if git(repo, "ls-tree", "--name-only", full, p).strip()]
            args += ["--", *present]
        tmp.write(git(repo, *args))
        tmp.seek(0)
        with tarfile.open(fileobj=tmp) as tar:
            tar.extractall(dest, filter="data")
    (dest / ".complete").write_text(full + "\n")
    return dest


def scanned(tree: Path, config: ScanConfig, rescan: bool):
    """The saved scan of ``tree`` under ``config``, or a fresh one (then saved)."""
    saved = tree.parent / f"{tree.name}.{scan_key(config)}.scan.pickle"
    if saved.exists() and not rescan:
        return pickle.loads(saved.read_bytes())
    result = scan([tree], config, load_rules([]))
    tmp = saved.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    tmp.replace(saved)
    return result


def dominant(report, result, top: int = 3) -> str:
    """What the likely hours are made of: the largest terms, by category for findings."""
    return ", ".join(f"{k} {100 * v:.0f}%" for k, v in report.dominant(result.findings, top))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--anchor", action="append", default=[], metavar="NAME=PATH[@COMMIT]")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "hipscan-anchors")
    ap.add_argument("--rescan", action="store_true", help="scan again even if a saved scan matches")
    ap.add_argument("--profile", type=Path, default=None, help="effort profile laid over the default")
    ap.add_argument("--rocm-version", default="6.4")
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument(
        "--with-vendored",
        action="store_true",
        help="also price each anchor with bundled trees scanned as code",
    )
    args = ap.parse_args(argv)
    given = {}
    for a in args.anchor:
        name, _, where = a.partition("=")
        path, _, commit = where.partition("@")
        given[name] = (Path(path), commit)
    unknown = set(given) - {a.name for a in ANCHORS}
    if unknown or not given:
        ap.error(f"--anchor NAME must be one of {', '.join(a.name for a in ANCHORS)}")
    profile = load_profile(args.profile)
    rocm = parse_version(args.rocm_version)
    rows = []
    for anchor in ANCHORS:
        if anchor.name not in given:
            continue
        repo, commit = given[anchor.name]
        tree = extract(anchor, repo, commit or anchor.commit, args.work)
        for vendored in (False, True):
            if vendored and not (args.with_vendored and rows and rows[-1]["bundled"]):
                continue
            config = ScanConfig(
                jobs=args.jobs,
                extra_exclude=anchor.exclude,
                defines=anchor.defines,
                rocm_version=rocm,
                progress=False,
            )
            if vendored:
                config = replace(config, include_vendored=True)
            result = scanned(tree, config, args.rescan)
            report = estimate(result, build_graph(result), profile, rocm_version=rocm)
            days = report.person_days
            rows.append(
                {
                    "anchor": anchor,
                    "vendored": vendored,
                    "commit": (tree / ".complete").read_text().strip()[:8],
                    "lines": sum(f.lines for f in result.files),
                    "findings": len(result.findings),
                    "days": days,
                    "dominant": dominant(report, result),
                    "readiness": report.readiness,
                    "bundled": [t.name for t in result.vendored],
                }
            )
    print_table(rows)
    return 0


def print_table(rows: list[dict]) -> None:
    print(
        "| code base | commit | lines | findings | reported | hipscan likely (low-high) person-days "
        "| likely / reported | in range | readiness | dominated by |"
    )
    print("|---|---|---:|---:|---|---|---:|---|---:|---|")
    ratios = []
    for r in rows:
        a, d = r["anchor"], r["days"]
        ratio = d.likely / a.reported
        inside = d.low <= a.reported <= d.high
        if not r["vendored"]:
            ratios.append(ratio)
        name = a.repo + (" (bundled code scanned)" if r["vendored"] else "")
        print(
            f"| {name} | {r['commit']} | {r['lines']:,} | {r['findings']} "
            f"| {a.reported_text} ({a.reported:g}) "
            f"| {d.likely:.1f} ({d.low:.1f}-{d.high:.1f}) | {ratio:.2f}x | {'yes' if inside else 'NO'} "
            f"| {r['readiness']} | {r['dominant']} |"
        )
    if ratios:
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(
            f"\ngeometric mean likely/reported {geo:.2f}x (range {min(ratios):.2f}-{max(ratios):.2f}x); "
            f"target: every reported figure inside low-high and likely within 1.5x"
        )


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except AnchorError as exc:
        print(f"effort_anchors: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
