"""Measure hipscan against what real ROCm ports changed, and print the tables.

    python3 benchmarks/accuracy.py CHECKOUTS [--only deepspeed,mamba] [--jobs 2]
        [--scans DIR [--reuse]] [--unlabelled] [--misses] [--markdown]
        [--save OUT.json] [--compare BEFORE.json]

CHECKOUTS holds one folder per code base, each the CUDA original that
benchmarks/ports/prepare.py cuts out (see docs/accuracy.md). The labels are
benchmarks/ports/<name>.csv: `edit` rows are lines the port replaced or removed, `left-alone`
rows are constructs that look like porting problems which the port compiled unchanged.

hipscan (this tree's code: `python3 -m hipscan scan DIR --format json`) scans each folder. An
edit is hit when a finding's line, or one of its `related` locations, lies within 3 lines of the
edit's line range; a left-alone construct is reported when a finding's own line lies in the
construct's line range. Each code base also gets a line saying where its findings in labelled
files land (on an edit, a rename, a left-alone construct, or no label): the precision side.
Findings in labelled files that meet no label are listed with --unlabelled, so a reader can
label them; --save keeps every label's outcome and --compare FILE lists what changed since an
earlier --save (run it before and after a rule change). Edits of class `rename` (what hipify's
renaming does by itself) are shown apart: a tool need not point at them.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PORTS = HERE / "ports"
sys.path.insert(0, str(PORTS))
from prepare import load_codebases  # noqa: E402

ROOT = HERE.parent
WINDOW = 3
CLASSES = ("warp", "non-warp", "rename")


class InputError(Exception):
    """A label file or a scan that cannot be used: reported as one line, exit status 2."""


@dataclass(frozen=True)
class Label:
    """One labelled place in a code base's CUDA original."""

    path: str
    line: int
    end_line: int
    kind: str  # edit | left-alone
    cls: str  # warp | non-warp | rename
    category: str
    note: str


@dataclass
class Finding:
    rule: str
    category: str
    path: str
    line: int
    message: str
    related: list[tuple[str, int]] = field(default_factory=list)


def load_labels(path: Path) -> list[dict]:
    """Rows of a label file as dicts (lines starting with # are comments)."""
    with path.open(newline="") as fh:
        rows = [line for line in fh if line.strip() and not line.lstrip().startswith("#")]
    out = []
    for row in csv.DictReader(rows):
        extra = row.pop(None, None)  # an unquoted comma in the note: the note is the last column
        if extra:
            row["note"] = ",".join([row.get("note") or "", *extra])
        out.append(row)
    return out


def parse_labels(path: Path) -> list[Label]:
    """Labels of one code base; a malformed row is a one-line error naming file and row."""
    out = []
    for i, row in enumerate(load_labels(path), start=1):
        try:
            line = int(row["line"])
            end = int(row.get("end_line") or line)
            kind, cls = row["kind"].strip(), row["class"].strip()
        except (KeyError, ValueError, AttributeError) as exc:
            raise InputError(f"{path}: row {i}: bad label ({exc})") from None
        if kind not in ("edit", "left-alone") or cls not in CLASSES or end < line:
            raise InputError(f"{path}: row {i}: bad kind/class/line range: {row}")
        out.append(
            Label(
                row["path"].strip(),
                line,
                end,
                kind,
                cls,
                (row.get("category") or "").strip(),
                row.get("note", ""),
            )
        )
    return out


def scan(folder: Path, jobs: int, out: Path, extra: tuple[str, ...] = ()) -> list[Finding]:
    """Run this tree's hipscan on one folder and read its findings."""
    cmd = [
        sys.executable, "-m", "hipscan", "scan", str(folder), "--format", "json", "-o", str(out),
        "--no-report", "--no-progress", "--jobs", str(jobs), *extra,
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode not in (0, 1) or not out.exists():
        raise InputError(f"{folder}: hipscan failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    return read_findings(out)


def read_findings(path: Path) -> list[Finding]:
    doc = json.loads(path.read_text())
    out = []
    for f in doc["findings"]:
        related = [
            (r.get("path", f["path"]), int(r["line"])) for r in f.get("related") or [] if r.get("line")
        ]
        out.append(Finding(f["rule"], f["category"], f["path"], int(f["line"]), f["message"], related))
    return out


def near(lab: Label, path: str, line: int, window: int) -> bool:
    return path == lab.path and lab.line - window <= line <= lab.end_line + window


def edit_hit(lab: Label, findings: list[Finding]) -> bool:
    """A finding (or a related location of one) within WINDOW lines of the edit."""
    for f in findings:
        if near(lab, f.path, f.line, WINDOW) or any(near(lab, p, n, WINDOW) for p, n in f.related):
            return True
    return False


def reported(lab: Label, findings: list[Finding]) -> bool:
    """A finding whose own line lies on the left-alone construct."""
    return any(near(lab, f.path, f.line, 0) for f in findings)


def unlabelled(labels: list[Label], findings: list[Finding]) -> list[Finding]:
    """Findings in labelled files that meet no label (edit window or left-alone range)."""
    files = {lab.path for lab in labels}
    out = []
    for f in findings:
        if f.path not in files:
            continue
        if any(near(lab, f.path, f.line, WINDOW if lab.kind == "edit" else 0) for lab in labels):
            continue
        out.append(f)
    return out


@dataclass
class Where:
    """Where a code base's findings in labelled files land: the precision side of the table."""

    findings: int = 0
    on_edit: int = 0
    on_rename: int = 0
    on_left_alone: int = 0
    on_nothing: int = 0

    def add(self, other: Where) -> None:
        for name in ("findings", "on_edit", "on_rename", "on_left_alone", "on_nothing"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def where(labels: list[Label], findings: list[Finding]) -> Where:
    """Sort each finding in a labelled file by the first label it meets: a warp/non-warp edit
    (within WINDOW lines), a rename edit, a left-alone construct (its own line), or none."""
    files = {lab.path for lab in labels}
    out = Where()
    for f in findings:
        if f.path not in files:
            continue
        out.findings += 1
        edits = [lab for lab in labels if lab.kind == "edit" and near(lab, f.path, f.line, WINDOW)]
        if any(lab.cls != "rename" for lab in edits):
            out.on_edit += 1
        elif edits:
            out.on_rename += 1
        elif any(lab.kind == "left-alone" and near(lab, f.path, f.line, 0) for lab in labels):
            out.on_left_alone += 1
        else:
            out.on_nothing += 1
    return out


def where_line(w: Where) -> str:
    share = f" ({w.on_edit / w.findings:.2f} on an edit)" if w.findings else ""
    return (
        f"findings in labelled files: {w.findings}{share}; on a warp/non-warp edit: {w.on_edit}, "
        f"on a rename: {w.on_rename}, on a left-alone construct: {w.on_left_alone}, "
        f"on no label: {w.on_nothing}"
    )


@dataclass
class Tally:
    edits: int = 0
    hit: int = 0
    alone: int = 0
    flagged: int = 0

    def add(self, other: Tally) -> None:
        self.edits += other.edits
        self.hit += other.hit
        self.alone += other.alone
        self.flagged += other.flagged


def measure(labels: list[Label], findings: list[Finding]) -> tuple[dict, list[tuple[Label, bool]]]:
    """Tallies per (class, category) and every label with its outcome."""
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_path[f.path].append(f)
        for path in {p for p, _ in f.related} - {f.path}:  # a header's constant used here
            by_path[path].append(f)
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    outcomes = []
    for lab in labels:
        fs = by_path.get(lab.path, [])
        t = tallies[(lab.cls, lab.category)]
        if lab.kind == "edit":
            ok = edit_hit(lab, fs)
            t.edits += 1
            t.hit += ok
        else:
            ok = reported(lab, fs)
            t.alone += 1
            t.flagged += ok
        outcomes.append((lab, ok))
    return tallies, outcomes


def ratio(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.2f})" if b else "-"


def table(rows: list[tuple[str, Tally]], markdown: bool) -> str:
    head = ("", "edits hit (±3 lines)", "left-alone reported")
    body = [(name, ratio(t.hit, t.edits), ratio(t.flagged, t.alone)) for name, t in rows]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|---|---:|---:|"]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(lines)
    width = max(len(r[0]) for r in [head, *body])
    return "\n".join(f"{r[0]:<{width}}  {r[1]:>22}  {r[2]:>20}" for r in [head, *body])


def summary(rows: list[tuple[str, dict[str, Tally], Where]], markdown: bool) -> str:
    """One line per code base: hits and reports by class, and where its findings land."""
    head = ("code base", "warp edits hit", "non-warp edits hit", "warp left-alone reported",
            "non-warp left-alone reported", "findings on an edit")  # fmt: skip
    body = []
    for name, classes, w in rows:
        warp, other = classes.get("warp", Tally()), classes.get("non-warp", Tally())
        body.append(
            (
                name,
                ratio(warp.hit, warp.edits),
                ratio(other.hit, other.edits),
                ratio(warp.flagged, warp.alone),
                ratio(other.flagged, other.alone),
                ratio(w.on_edit, w.findings),
            )
        )
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)) for r in [head, *body])


def is_choice(lab: Label) -> bool:
    """An edit a port made for speed or by preference (note `tuning:` / `port's choice:`), not
    because the CUDA code broke: shown apart, as no porting tool should be asked to flag it."""
    note = lab.note.lower()
    return "tuning:" in note or note.startswith("port's choice")


def without_choices(details: list) -> Tally:
    """Non-warp tallies with tuning and the ports' own choices left out."""
    t = Tally()
    for _name, outcomes, _extra in details:
        for lab, ok in outcomes:
            if lab.cls != "non-warp" or (lab.kind == "edit" and is_choice(lab)):
                continue
            if lab.kind == "edit":
                t.edits += 1
                t.hit += ok
            else:
                t.alone += 1
                t.flagged += ok
    return t


def by_class(tallies: dict) -> dict[str, Tally]:
    out: dict[str, Tally] = defaultdict(Tally)
    for (cls, _cat), t in tallies.items():
        out[cls].add(t)
    return out


def outcome_map(details: list) -> dict[str, dict]:
    """Every label's outcome, keyed by code base, path, lines and kind (stable across runs)."""
    out = {}
    for name, outcomes, _extra in details:
        for lab, ok in outcomes:
            key = f"{name} {lab.path}:{lab.line}-{lab.end_line} {lab.kind}"
            out[key] = {"class": lab.cls, "category": lab.category, "ok": bool(ok), "note": lab.note}
    return out


def compare(before: dict[str, dict], after: dict[str, dict]) -> list[str]:
    """Labels whose outcome changed: edits newly hit or lost, left-alone constructs newly
    reported or no longer reported."""
    lines = []
    for key in sorted(after):
        if key not in before or before[key]["ok"] == after[key]["ok"]:
            continue
        edit = key.endswith(" edit")
        now = after[key]["ok"]
        what = (
            ("hit (was missed)" if now else "MISSED (was hit)")
            if edit
            else ("REPORTED (was quiet)" if now else "quiet (was reported)")
        )
        lines.append(f"{what:22} {key} [{after[key]['class']}/{after[key]['category']}] {after[key]['note']}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkouts", type=Path, help="folder with one prepared CUDA original per code base")
    ap.add_argument("--only", help="comma-separated code base names")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scans", type=Path, help="keep (or reuse, with --reuse) each scan's JSON here")
    ap.add_argument("--reuse", action="store_true", help="read <scans>/<name>.json instead of scanning")
    ap.add_argument(
        "--unlabelled", action="store_true", help="list findings in labelled files that meet no label"
    )
    ap.add_argument(
        "--misses", action="store_true", help="list every missed edit and reported left-alone construct"
    )
    ap.add_argument(
        "--rocm-version",
        metavar="X.Y",
        help="scan every code base for this ROCm release (default: hipscan's)",
    )
    ap.add_argument("--markdown", action="store_true", help="tables as Markdown")
    ap.add_argument("--save", type=Path, help="write every label's outcome to this JSON file")
    ap.add_argument(
        "--compare",
        type=Path,
        help="a --save file from an earlier run: list the labels whose outcome changed since",
    )
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    names = [p.stem for p in sorted(PORTS.glob("*.csv")) if not only or p.stem in only]
    codebases = {cb.name: cb for cb in load_codebases()}
    overall: dict[str, Tally] = defaultdict(Tally)
    landing = Where()
    rows: list[tuple[str, dict[str, Tally], Where]] = []
    per_category: dict[tuple[str, str], Tally] = defaultdict(Tally)
    details = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            folder = args.checkouts / name
            if not folder.is_dir():
                print(f"{folder}: not prepared (see benchmarks/ports/prepare.py); skipped", file=sys.stderr)
                continue
            labels = parse_labels(PORTS / f"{name}.csv")
            out = (args.scans or Path(tmp)) / f"{name}.json"
            if args.scans:
                args.scans.mkdir(parents=True, exist_ok=True)
            extra = codebases[name].scan_args if name in codebases else ()
            if args.rocm_version:
                extra = (*extra, "--rocm-version", args.rocm_version)
            findings = (
                read_findings(out) if args.reuse and out.exists() else scan(folder, args.jobs, out, extra)
            )
            tallies, outcomes = measure(labels, findings)
            for key, t in tallies.items():
                per_category[key].add(t)
            classes = by_class(tallies)
            for cls, t in classes.items():
                overall[cls].add(t)
            print(f"\n## {name} ({len(findings)} findings, {len(labels)} labels)\n")
            print(table([(c, classes[c]) for c in CLASSES if c in classes], args.markdown))
            w = where(labels, findings)
            landing.add(w)
            rows.append((name, classes, w))
            print("\n" + where_line(w))
            details.append((name, outcomes, unlabelled(labels, findings)))
    rows.append(("all", dict(overall), landing))
    print("\n## summary\n")
    print(summary(rows, args.markdown))
    print("\n## all code bases\n")
    totals = [(c, overall[c]) for c in CLASSES if c in overall]
    totals.append(("non-warp, tuning and port's choices left out", without_choices(details)))
    print(table(totals, args.markdown))
    print("\n" + where_line(landing))
    print("\n## per category\n")
    rows = [(f"{cls} / {cat or '-'}", t) for (cls, cat), t in sorted(per_category.items())]
    print(table(rows, args.markdown))
    current = outcome_map(details)
    if args.save:
        tmp = args.save.with_name(args.save.name + ".tmp")
        tmp.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
        tmp.replace(args.save)
    if args.compare:
        print("\n## changes since " + str(args.compare) + "\n")
        print("\n".join(compare(json.loads(args.compare.read_text()), current)) or "no label changed")
    for name, outcomes, extra in details:
        if args.misses:
            print(f"\n## {name}: missed edits and reported left-alone constructs\n")
            for lab, ok in outcomes:
                if (lab.kind == "edit") != ok:
                    what = "missed" if lab.kind == "edit" else "reported"
                    print(f"{what:8} {lab.path}:{lab.line} [{lab.cls}/{lab.category}] {lab.note}")
        if args.unlabelled:
            print(f"\n## {name}: findings in labelled files that meet no label ({len(extra)})\n")
            for f in extra:
                print(f"{f.path}:{f.line}: {f.rule} [{f.category}] {f.message[:100]}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except InputError as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)
