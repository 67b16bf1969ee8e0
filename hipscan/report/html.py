"""The HTML readiness report: one self-contained page (inline CSS, JS and SVG, no requests).

A scanned repository is untrusted input, so every piece of its text reaches the page through
jinja2 autoescaping; the only markup built here is the rule documentation, which is escaped
first and then given a few Markdown constructs. The dependency picture is laid out in Python
(layers of the file graph's condensation, leaves on the left) and drawn as inline SVG.
"""

from __future__ import annotations

import html
import math
import re
from collections import defaultdict
from pathlib import Path, PurePosixPath

import jinja2
import networkx as nx
from markupsafe import Markup

from hipscan.graph import file_dependency_graph
from hipscan.model import SEVERITIES, ScanResult, severity_rank
from hipscan.report.context import ReportContext, summary
from hipscan.resources import templates_dir

TEMPLATE = "report.html.j2"
DETAIL_LIMIT = 2000  # findings shown with excerpt and documentation; the rest in the table only
GRAPH_NODES = 60  # files drawn in the dependency picture, hottest first
COMPONENT_GRAPH_FILES = 150  # above this many files the picture shows components, not files
LOCATIONS_SHOWN = 200  # locations listed under one rule in the planning view
PACKAGE_LIMIT = 200  # migration-order rows

SEVERITY_COLOUR = {
    "blocker": "#7f1d1d",
    "high": "#dc2626",
    "medium": "#f59e0b",
    "low": "#facc15",
    "info": "#93c5fd",
    "": "#86efac",
}


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=True,  # every template, whatever its name: scanned text is untrusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


# ---------------------------------------------------------------------------------------------
# A small, safe Markdown subset for rule documentation


_INLINE_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
# in escaped text: a URL ends before an entity (`<https://…>` is `&lt;https://…&gt;` by then)
_URL = re.compile(r"https?://(?:(?!&gt;|&lt;|&quot;|&#39;|&#x27;)[^\s<>\"')\]])+")


def _inline(escaped: str) -> str:
    escaped = _INLINE_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", escaped)
    escaped = _BOLD.sub(lambda m: f"<strong>{m.group(1)}</strong>", escaped)
    return _URL.sub(_link, escaped)


def _link(m: re.Match) -> str:
    """A link for a bare URL; sentence punctuation after it stays outside."""
    url = m.group(0)
    cut = len(url.rstrip(".,;:!?"))
    return f'<a href="{url[:cut]}" rel="noreferrer">{url[:cut]}</a>{url[cut:]}'


def markdown_html(text: str) -> Markup:
    """Headings, fenced code, lists, paragraphs, inline code, bold, bare https links.

    Every line is HTML-escaped before any markup is added, so the result is safe whatever the
    rule file contains.
    """
    out: list[str] = []
    para: list[str] = []
    items: list[str] = []
    code: list[str] | None = None

    def flush() -> None:
        if para:
            out.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for raw in text.splitlines():
        line = html.escape(raw, quote=True)
        if raw.lstrip().startswith("```"):
            if code is None:
                flush()
                code = []
            else:
                out.append("<pre><code>" + "\n".join(code) + "</code></pre>")
                code = None
            continue
        if code is not None:
            code.append(line)
        elif not raw.strip():
            flush()
        elif m := re.match(r"(#{1,6})\s+(.*)", line):
            flush()
            level = min(6, len(m.group(1)) + 3)  # rule docs sit under the page's own headings
            out.append(f"<h{level}>{_inline(m.group(2))}</h{level}>")
        elif m := re.match(r"\s*[-*]\s+(.*)", line):
            if para:
                flush()
            items.append(m.group(1))
        else:
            if items:
                flush()
            para.append(line.strip())
    if code is not None:
        out.append("<pre><code>" + "\n".join(code) + "</code></pre>")
    flush()
    return Markup("\n".join(out))


# ---------------------------------------------------------------------------------------------
# The dependency picture


def graph_layout(g: nx.DiGraph, result: ScanResult, ctx: ReportContext, limit: int) -> dict:
    """Coordinates for the hottest files and the dependencies between them.

    Files are ranked by estimated hours (then findings); the top ``limit`` are drawn. Each
    strongly connected group shares a layer; a file's layer is the longest dependency chain
    below it, so headers sit left of what includes them. Within a layer, nodes are ordered by
    the mean position of their neighbours in the previous layer (one barycentre sweep), and a
    tall layer wraps into several columns.
    """
    files = file_dependency_graph(g)
    effort = ctx.effort
    worst: dict[str, str] = {}
    for f in result.findings:
        if f.path not in worst or severity_rank(f.severity) > severity_rank(worst[f.path]):
            worst[f.path] = f.severity

    def heat(p: str) -> tuple:
        fe = effort.files.get(p)
        return (-(fe.findings.mean if fe else 0.0), -(fe.count if fe else 0), p)

    candidates = [p for p in files if (effort.files.get(p) and effort.files[p].count)]
    candidates += [p for p in files if p not in set(candidates) and files.degree(p)]
    chosen = sorted(set(candidates), key=heat)[:limit]
    if not chosen:
        return {"nodes": [], "edges": [], "width": 0, "height": 0, "hidden": 0}
    sub = files.subgraph(chosen).copy()
    cond = nx.condensation(sub)
    layer_of_c: dict[int, int] = {}
    for c in reversed(list(nx.topological_sort(cond))):  # sinks (leaves) first
        layer_of_c[c] = 1 + max((layer_of_c[s] for s in cond.successors(c)), default=-1)
    layer = {p: layer_of_c[cond.graph["mapping"][p]] for p in chosen}

    # Files with no drawn edge go to trailing columns of their own, apart from the layers.
    loose = [p for p in sorted(chosen, key=heat) if not sub.degree(p)]
    by_layer: dict[int, list[str]] = defaultdict(list)
    for p in sorted(chosen, key=heat):
        if sub.degree(p):
            by_layer[layer[p]].append(p)
    rows_max = 12
    position: dict[str, float] = {}
    columns: list[list[str]] = []
    for lay in sorted(by_layer):
        members = by_layer[lay]
        if lay > 0:

            def bary(p: str) -> float:
                near = [position[q] for q in sub.successors(p) if q in position]
                return sum(near) / len(near) if near else float("inf")

            members = sorted(members, key=lambda p: (bary(p), heat(p)))
        for start in range(0, len(members), rows_max):
            columns.append(members[start : start + rows_max])
            for row, p in enumerate(columns[-1]):
                position[p] = row
    columns += [loose[i : i + rows_max] for i in range(0, len(loose), rows_max)]

    col_w, row_h, pad = 190, 44, 30
    coords: dict[str, tuple[float, float]] = {}
    for ci, col in enumerate(columns):
        for row, p in enumerate(col):
            coords[p] = (pad + 60 + ci * col_w, pad + 10 + row * row_h)
    hot = {p for p in chosen[:5] if effort.files.get(p) and effort.files[p].count}
    nodes = []
    for p in chosen:
        fe = effort.files.get(p)
        count = fe.count if fe else 0
        x, y = coords[p]
        name = PurePosixPath(p).name
        nodes.append(
            {
                "x": round(x, 1),
                "y": round(y, 1),
                "r": round(6 + 3 * math.sqrt(count), 1) if count else 5,
                "colour": SEVERITY_COLOUR[worst.get(p, "")],
                "label": name if len(name) <= 24 else name[:23] + "…",
                "title": f"{p}: {count} finding(s), {fe.total.mean if fe else 0:.1f} h"
                + (f", {fe.fan_in} dependent file(s)" if fe and fe.fan_in else ""),
                "hot": p in hot,
                "anchor": _anchor("file", p),
            }
        )
    radius = {p: n["r"] for p, n in zip(chosen, nodes, strict=True)}
    edges = [_edge(coords[a], coords[b], radius[b]) for a, b in sorted(sub.edges())]
    return {
        "nodes": nodes,
        "edges": edges,
        "width": pad * 2 + 120 + col_w * max(0, len(columns) - 1) + 60,
        "height": pad * 2 + 20 + row_h * (max(len(c) for c in columns) - 1) + 20,
        "hidden": len(files) - len(chosen),
    }


def component_layout(plan, limit: int) -> dict:
    """The component graph drawn like the file graph: layers of its condensation, leaves left.

    Used when a tree has too many files for a readable file picture; circle size is findings,
    colour the component's readiness band.
    """
    comps = {c.name: c for c in plan.components[:limit]}
    g = nx.DiGraph()
    g.add_nodes_from(comps)
    g.add_edges_from((a, b) for a, b, _ in plan.edges if a in comps and b in comps)
    if not comps:
        return {"nodes": [], "edges": [], "width": 0, "height": 0, "hidden": 0}
    cond = nx.condensation(g)
    layer_of_c: dict[int, int] = {}
    for c in reversed(list(nx.topological_sort(cond))):
        layer_of_c[c] = 1 + max((layer_of_c[s] for s in cond.successors(c)), default=-1)
    by_layer: dict[int, list[str]] = defaultdict(list)
    for name in comps:  # components come costliest first
        by_layer[layer_of_c[cond.graph["mapping"][name]] if g.degree(name) else -1].append(name)
    rows_max, col_w, row_h, pad = 12, 230, 44, 30
    columns: list[list[str]] = []
    for lay in sorted(k for k in by_layer if k >= 0) + ([-1] if -1 in by_layer else []):
        members = by_layer[lay]
        columns += [members[i : i + rows_max] for i in range(0, len(members), rows_max)]
    coords = {}
    for ci, col in enumerate(columns):
        for row, name in enumerate(col):
            coords[name] = (pad + 60 + ci * col_w, pad + 10 + row * row_h)
    nodes = []
    for name, c in comps.items():
        x, y = coords[name]
        colour = "#16a34a" if c.readiness >= 70 else "#f59e0b" if c.readiness >= 40 else "#dc2626"
        label = PurePosixPath(name).name or name
        nodes.append(
            {
                "x": x,
                "y": y,
                "r": round(6 + 2 * math.sqrt(c.findings), 1) if c.findings else 5,
                "colour": colour,
                "label": label if len(label) <= 28 else label[:27] + "…",
                "title": f"{name}: {len(c.files)} file(s), {c.findings} finding(s), "
                f"{c.hours.likely:.1f} h likely, readiness {c.readiness}",
                "hot": False,
                "anchor": _anchor("component", name),
            }
        )
    radius = {n["anchor"]: n["r"] for n in nodes}
    edges = [
        _edge(coords[a], coords[b], radius[_anchor("component", b)])
        for a, b, _ in plan.edges
        if a in coords and b in coords
    ]
    return {
        "nodes": nodes,
        "edges": edges,
        "width": pad * 2 + 120 + col_w * max(0, len(columns) - 1) + 90,
        "height": pad * 2 + 20 + row_h * (max(len(c) for c in columns) - 1) + 20,
        "hidden": max(0, len(plan.components) - limit),
    }


def _edge(a: tuple[float, float], b: tuple[float, float], r_target: float) -> dict:
    """A quadratic curve from ``a`` to the rim of the circle at ``b``.

    Edges within one column bow out to the left so they do not run through the nodes between.
    """
    (x1, y1), (x2, y2) = a, b
    if abs(x1 - x2) < 1:
        cx, cy = x1 - 30 - abs(y2 - y1) / 4, (y1 + y2) / 2
    else:
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    dx, dy = x2 - cx, y2 - cy
    length = math.hypot(dx, dy) or 1.0
    end_x, end_y = x2 - dx / length * (r_target + 2), y2 - dy / length * (r_target + 2)
    return {"d": f"M{x1:.1f},{y1:.1f} Q{cx:.1f},{cy:.1f} {end_x:.1f},{end_y:.1f}"}


def _anchor(kind: str, text: str) -> str:
    """A fragment id safe in HTML and CSS selectors for any path."""
    return f"{kind}-" + "".join(c if c.isalnum() else f"_{ord(c):x}" for c in text)


# ---------------------------------------------------------------------------------------------
# The page


class _Sources:
    """Scanned files' lines, read once each, for excerpts around findings."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.cache: dict[str, list[str]] = {}

    def excerpt(self, path: str, line: int, around: int) -> list[dict]:
        if path not in self.cache:
            try:
                text = (self.root / path).read_text("utf-8", errors="replace")
                self.cache[path] = text.splitlines()
            except OSError:
                self.cache[path] = []
        rows = self.cache[path]
        lo, hi = max(1, line - around), min(len(rows), line + around)
        return [{"n": n, "text": rows[n - 1], "hit": n == line} for n in range(lo, hi + 1)]


def _translation_rows(ctx: ReportContext) -> tuple[list[str], list[list]]:
    """Translation reports as a table: their scalar fields, and sizes of their list fields."""
    dicts = ctx.translation_dicts()
    if not dicts:
        return [], []
    keys: list[str] = []
    for d in dicts:
        keys += [k for k in d if k not in keys]
    keys = keys[:8]

    def cell(v):
        if isinstance(v, dict):
            return sum(x if isinstance(x, int) else 1 for x in v.values())
        if isinstance(v, list | tuple):
            return len(v)
        return v

    return keys, [[cell(d.get(k, "")) for k in keys] for d in dicts]


def render_html(result: ScanResult, ctx: ReportContext) -> str:
    s = summary(result, ctx)
    effort = ctx.effort
    sources = _Sources(result.root)
    ranked = sorted(
        range(len(result.findings)),
        key=lambda i: (-severity_rank(result.findings[i].severity), result.findings[i].sort_key),
    )

    worst_in: dict[str, str] = {}
    for f in result.findings:
        if f.path not in worst_in or severity_rank(f.severity) > severity_rank(worst_in[f.path]):
            worst_in[f.path] = f.severity
    statuses = {f.path: f for f in result.files}
    file_rows = []
    for p, fe in sorted(effort.files.items()):
        fr = statuses.get(p)
        file_rows.append(
            {
                "path": p,
                "anchor": _anchor("file", p),
                "directory": str(PurePosixPath(p).parent),
                "status": fr.status if fr else "not scanned",
                "lines": fr.lines if fr else 0,
                "findings": fe.count,
                "blockers": fe.blockers,
                "worst": worst_in.get(p, ""),
                "worst_rank": severity_rank(worst_in[p]) if p in worst_in else -1,
                "hours": fe.total,
                "fan_in": fe.fan_in,
            }
        )

    findings = []
    for n, i in enumerate(ranked):
        f = result.findings[i]
        meta = ctx.rule(f)
        detailed = n < DETAIL_LIMIT
        findings.append(
            {
                "f": f,
                "anchor": f"finding-{n + 1}",
                "file_anchor": _anchor("file", f.path),
                "rule_anchor": _anchor("rule", f.rule),
                "title": meta.title,
                "remediation": f.fix or meta.remediation,
                "hours": effort.findings[i].hours,
                "excerpt": sources.excerpt(f.path, f.line, ctx.excerpt_lines) if detailed else [],
                "detailed": detailed,
            }
        )

    rules = {}
    for i in ranked:
        f = result.findings[i]
        if f.rule not in rules:
            meta = ctx.rule(f)
            rules[f.rule] = {
                "meta": meta,
                "anchor": _anchor("rule", f.rule),
                "doc": markdown_html(meta.doc_markdown) if meta.doc_markdown else None,
                "count": 0,
            }
        rules[f.rule]["count"] += 1

    blockers = [
        {"f": result.findings[i], "anchor": _anchor("file", result.findings[i].path)} for i in effort.blockers
    ]
    plan = ctx.plan
    many = len(effort.files) > COMPONENT_GRAPH_FILES and len(plan.components) > 1
    graph = component_layout(plan, GRAPH_NODES) if many else graph_layout(ctx.graph, result, ctx, GRAPH_NODES)
    pkgs = [p for p in effort.order if p.findings or p.kernels]
    cat_max = max(s["by_category"].values(), default=1)
    translation_keys, translation_rows = _translation_rows(ctx)
    template = environment().get_template(TEMPLATE)
    return template.render(
        title=f"hipscan readiness report: {Path(result.root).name}",
        root=str(result.root),
        version=ctx.version,
        summary=s,
        effort=effort,
        days=effort.person_days,
        severities=list(reversed(SEVERITIES)),
        severity_colour=SEVERITY_COLOUR,
        by_category=[(c, n, round(100 * n / cat_max)) for c, n in s["by_category"].items()],
        blockers=blockers,
        files=file_rows,
        findings=findings,
        detail_limit=DETAIL_LIMIT,
        rules=list(rules.values()),
        graph=graph,
        graph_level="component" if many else "file",
        plan=plan,
        component_anchor=lambda name: _anchor("component", name),
        location_anchor=lambda loc: _anchor("file", loc.rsplit(":", 2)[0]),
        locations_shown=LOCATIONS_SHOWN,
        dominant=effort.dominant(result.findings, 4),
        kernels=effort.kernels[:25],
        packages=pkgs[:PACKAGE_LIMIT],
        packages_hidden=len(pkgs) - min(len(pkgs), PACKAGE_LIMIT),
        packages_trivial=len(effort.order) - len(pkgs),
        translation_keys=translation_keys,
        translation_rows=translation_rows,
        categories=sorted({f.category for f in result.findings}),
        features=result.features,
    )
