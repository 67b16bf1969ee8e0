"""The planning view: findings and effort rolled up per component, blockers grouped by rule.

A manager plans by component (a library, a sample, a Python extension), not by file. A component
is a CMake target or a Python extension when the build files name the sources of most CUDA files,
else a folder at the shallowest depth that splits the tree (no folder holding most of the files).
Per component: files, findings, blockers, the effort range, a readiness score (the project's
formula on the component's own hours) and the rules that cost most there. Blockers are grouped
by rule with their count and locations, and the file graph is collapsed to components.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import networkx as nx

from hipscan.effort import EffortReport, Hours, total
from hipscan.graph import file_dependency_graph
from hipscan.model import ScanResult

TOP_LEVEL = "(top level)"
MAX_SHARE = 0.6  # a folder depth whose largest folder holds more than this is split further
MAX_DEPTH = 3
KEEPS = 0.8  # going deeper is pointless when the largest folder keeps this share of its files
TARGET_SHARE = 0.5  # build targets are the components when they name this share of CUDA files

# add_library(name [STATIC|SHARED|...] sources...), cuda_add_library, add_executable, hip_add_*
_CMAKE_TARGET = re.compile(
    r"\b(?:cuda_|hip_)?add_(?:library|executable)\s*\(\s*([\w.+-]+)([^)]*)\)", re.I | re.S
)
# CUDAExtension("name", sources=[...]) / CUDAExtension(name="name", sources=[...])
_PY_EXTENSION = re.compile(r"\bCUDAExtension\s*\(\s*(?:name\s*=\s*)?['\"]([\w.]+)['\"](.*?)\]\s*[,)]", re.S)
_SOURCE = re.compile(r"['\"]?([\w./+-]+\.(?:cu|cuh|cpp|cc|cxx|c|h|hpp))['\"]?")


@dataclass(slots=True)
class RuleGroup:
    """One rule's findings in a scope: count, hours, and where."""

    rule: str
    title: str
    severity: str
    count: int = 0
    hours: Hours = Hours()
    locations: list[str] = field(default_factory=list)

    def to_dict(self, limit: int = 50) -> dict:
        return {
            "rule": self.rule,
            "title": self.title,
            "severity": self.severity,
            "count": self.count,
            "hours": self.hours.to_dict(),
            "locations": self.locations[:limit],
            "more_locations": max(0, len(self.locations) - limit),
        }


@dataclass(slots=True)
class Component:
    name: str
    kind: str  # folder | cmake-target | python-extension
    files: list[str] = field(default_factory=list)
    lines: int = 0
    findings: int = 0
    blockers: int = 0
    hours: Hours = Hours()
    manual: Hours = Hours()
    mechanical: Hours = Hours()
    readiness: int = 100
    rules: list[RuleGroup] = field(default_factory=list)  # costliest first
    depends_on: list[str] = field(default_factory=list)

    def to_dict(self, hours_per_day: float) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "files": len(self.files),
            "lines": self.lines,
            "findings": self.findings,
            "blockers": self.blockers,
            "readiness": self.readiness,
            "hours": self.hours.to_dict(),
            "person_days": self.hours.scale(1 / hours_per_day).to_dict(),
            "rules": [g.to_dict(limit=10) for g in self.rules[:8]],
            "depends_on": self.depends_on,
        }


@dataclass(slots=True)
class Plan:
    kind: str
    components: list[Component]
    blockers_by_rule: list[RuleGroup]
    hard_rules: list[RuleGroup]  # every rule, costliest first
    edges: list[tuple[str, str, int]]  # component -> component it depends on, file edges
    hours_per_day: float = 8.0

    def to_dict(self) -> dict:
        return {
            "component_kind": self.kind,
            "components": [c.to_dict(self.hours_per_day) for c in self.components],
            "blockers_by_rule": [g.to_dict() for g in self.blockers_by_rule],
            "costliest_rules": [g.to_dict(limit=10) for g in self.hard_rules[:15]],
            "component_graph": [{"from": a, "to": b, "file_edges": n} for a, b, n in self.edges],
        }


def _build_targets(root: Path, build_files: list[str]) -> tuple[str, dict[str, str]]:
    """file -> target named in CMake (add_library ...) or setup.py (CUDAExtension)."""
    owner: dict[str, str] = {}
    kind = ""
    for rel in build_files:
        name = PurePosixPath(rel).name
        if name != "CMakeLists.txt" and name != "setup.py":
            continue
        try:
            text = (Path(root) / rel).read_text("utf-8", errors="replace")
        except OSError:
            continue
        text = re.sub(r"#[^\n]*", "", text)
        folder = PurePosixPath(rel).parent
        pattern = _CMAKE_TARGET if name == "CMakeLists.txt" else _PY_EXTENSION
        for m in pattern.finditer(text):
            target = m.group(1)
            for src in _SOURCE.findall(m.group(2)):
                path = str(folder / src) if str(folder) != "." else src
                owner.setdefault(str(PurePosixPath(path)), target)
                kind = "cmake-target" if name == "CMakeLists.txt" else "python-extension"
    return kind, owner


def _build_scripts(root: Path, paths: list[str], known: list[str]) -> list[str]:
    """CMakeLists.txt and setup.py in the folders of the scanned files and above them (a target's
    CMakeLists.txt need not name CUDA itself)."""
    folders: set[str] = {""}
    for p in paths:
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folders.add("/".join(parts[:i]))
    found = set(known)
    for folder in folders:
        for name in ("CMakeLists.txt", "setup.py"):
            rel = f"{folder}/{name}" if folder else name
            if os.path.isfile(os.path.join(root, rel)):
                found.add(rel)
    return sorted(found)


def _folder_of(path: str, depth: int) -> str:
    parts = path.split("/")[:-1]
    if not parts:
        return TOP_LEVEL
    return "/".join(parts[:depth])


def _folder_depth(paths: list[str]) -> int:
    """The shallowest depth at which no folder holds more than MAX_SHARE of the files, or at which
    going deeper would not split the largest folder (its files sit in it directly)."""
    if not paths:  # nothing to split (a scan that found no findings and no CUDA files)
        return 1
    for depth in range(1, MAX_DEPTH + 1):
        counts = Counter(_folder_of(p, depth) for p in paths)
        if len(counts) > 1 and max(counts.values()) <= MAX_SHARE * len(paths):
            return depth
        deeper = Counter(_folder_of(p, depth + 1) for p in paths)
        if max(deeper.values()) >= KEEPS * max(counts.values()):
            return depth
    return MAX_DEPTH


def assign(result: ScanResult, effort: EffortReport) -> tuple[str, dict[str, str]]:
    """Component kind, and the component of every file the estimate knows."""
    paths = sorted(effort.files)
    cuda = [p for p in paths if effort.files[p].cuda]
    kind, owner = _build_targets(result.root, _build_scripts(result.root, paths, effort.build_files))
    if cuda and sum(p in owner for p in cuda) >= TARGET_SHARE * len(cuda):
        # a file no target lists (a header) joins the target whose sources share its folder
        by_folder: dict[str, Counter] = defaultdict(Counter)
        for p, target in owner.items():
            by_folder[str(PurePosixPath(p).parent)][target] += 1
        depth = _folder_depth(paths)
        out = {}
        for p in paths:
            target = owner.get(p)
            folder = PurePosixPath(p).parent
            while target is None and str(folder) not in ("", "."):
                near = by_folder.get(str(folder))
                target = near.most_common(1)[0][0] if near else None
                folder = folder.parent
            out[p] = target or _folder_of(p, depth)
        return kind, out
    depth = _folder_depth(cuda or paths)
    return "folder", {p: _folder_of(p, depth) for p in paths}


def plan(result: ScanResult, effort: EffortReport, graph: nx.DiGraph, rules=None) -> Plan:
    """Roll the estimate up per component (see the module docstring)."""
    kind, comp_of = assign(result, effort)
    lines = {f.path: f.lines for f in result.files}
    comps: dict[str, Component] = {}
    for p, fe in sorted(effort.files.items()):
        c = comps.setdefault(comp_of[p], Component(comp_of[p], kind if kind else "folder"))
        c.files.append(p)
        c.lines += lines.get(p, 0)
        c.findings += fe.count
        c.blockers += fe.blockers
        c.mechanical = c.mechanical + fe.translation
        c.manual = c.manual + fe.findings
    groups: dict[str, dict[str, RuleGroup]] = defaultdict(dict)
    everywhere: dict[str, RuleGroup] = {}
    blockers: dict[str, RuleGroup] = {}
    order = sorted(range(len(result.findings)), key=lambda i: result.findings[i].sort_key)
    for i in order:
        f = result.findings[i]
        comp = comp_of.get(f.path)
        title = _title(rules, f)
        where = f"{f.path}:{f.line}:{f.column}"
        for bucket in (groups[comp] if comp else {}, everywhere) + (
            (blockers,) if f.severity == "blocker" else ()
        ):
            g = bucket.setdefault(f.rule, RuleGroup(f.rule, title, f.severity))
            g.count += 1
            g.hours = g.hours + effort.findings[i].hours
            g.locations.append(where)
    for name, c in comps.items():
        c.rules = sorted(groups[name].values(), key=lambda g: (-g.hours.likely, g.rule))
        c.hours = c.manual + c.mechanical
        c.readiness = _readiness(c, effort)
    edges = _component_edges(graph, comp_of)
    for a, b, _ in edges:
        comps[a].depends_on.append(b)
    ranked = sorted(comps.values(), key=lambda c: (-c.hours.likely, c.name))
    hard = sorted(everywhere.values(), key=lambda g: (-g.hours.likely, g.rule))
    block = sorted(blockers.values(), key=lambda g: (-g.count, g.rule))
    return Plan(kind or "folder", ranked, block, hard, edges, effort.hours_per_day)


def _title(rules, f) -> str:
    rule = rules.get(f.rule) if rules is not None and hasattr(rules, "get") else None
    title = getattr(rule, "title", "") if rule is not None else ""
    return title or f.name.replace("-", " ")


def _readiness(c: Component, effort: EffortReport) -> int:
    """The project formula on one component: mechanical share, blocker files, blocker cap."""
    work = c.manual.likely + c.mechanical.likely
    ease = c.mechanical.likely / work if work else 1.0
    cuda = [p for p in c.files if effort.files[p].cuda]
    share = sum(1 for p in cuda if effort.files[p].blockers) / len(cuda) if cuda else 0.0
    weight = effort.readiness_parts.get("blocker_weight", 0.5)
    score = 100 * ease * (1 - weight * share)
    if c.blockers:
        score = min(score, effort.readiness_parts.get("blocker_cap", 89))
    return int(round(score))


def _component_edges(graph: nx.DiGraph, comp_of: dict[str, str]) -> list[tuple[str, str, int]]:
    files = file_dependency_graph(graph)
    counts: Counter = Counter()
    for a, b in files.edges():
        ca, cb = comp_of.get(a), comp_of.get(b)
        if ca and cb and ca != cb:
            counts[(ca, cb)] += 1
    return sorted((a, b, n) for (a, b), n in counts.items())


def shared_hours(effort: EffortReport) -> Hours:
    """What belongs to no component: the build port and the bundled trees."""
    return total((effort.build, effort.bundled))
