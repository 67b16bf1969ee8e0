"""The project's dependency graph: files, kernels, device functions, the host code launching them.

One directed graph holds every relation the effort model and the reports need, with the edge
direction always meaning *depends on*: a file depends on the headers it includes, a function on
the functions it calls and the kernels it launches, and a file on the functions it defines
(``defines``). Findings hang on the nodes they were found in, so hot spots can be read off it.

Node ids are strings: ``file:<path>`` and ``fn:<path>:<line>:<qualname>`` (a function is
identified by where it is defined, so overloads and same-named statics in different files stay
apart). The facts of a header appear once per translation unit that includes it; every record is
de-duplicated on its location before it enters the graph.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import networkx as nx

from hipscan.facts import FunctionFact
from hipscan.model import SEVERITIES, ScanResult, severity_rank

GRAPH_SCHEMA = 1
KERNEL, DEVICE, HOST = "kernel", "device-function", "host-function"


def file_node(path: str) -> str:
    return f"file:{path}"


def function_node(fn: FunctionFact) -> str:
    return f"fn:{fn.loc.path}:{fn.loc.line}:{fn.qualname or fn.name}"


def _bare(name: str) -> str:
    """``ns::kernel<T, 4>`` -> ``kernel``: the name a definition is indexed under."""
    depth, out = 0, []
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out).rsplit("::", 1)[-1].strip()


@dataclass(frozen=True, slots=True)
class _Definition:
    node: str
    fn: FunctionFact


class _FunctionIndex:
    """Definitions by name, for resolving calls and launches that name their target by spelling."""

    def __init__(self, functions: Iterable[FunctionFact]):
        self.by_qualname: dict[str, list[_Definition]] = defaultdict(list)
        self.by_name: dict[str, list[_Definition]] = defaultdict(list)
        self.by_path: dict[str, list[_Definition]] = defaultdict(list)
        for fn in functions:
            d = _Definition(function_node(fn), fn)
            self.by_qualname[fn.qualname or fn.name].append(d)
            self.by_name[fn.name].append(d)
            self.by_path[fn.loc.path].append(d)

    def resolve(
        self, name: str, qualname: str, from_path: str, visible: frozenset[str] = frozenset()
    ) -> list[_Definition]:
        """Definitions a call may reach: exact qualified name first, then the bare name.

        Candidates are narrowed to the calling file, else to the files of the calling
        translation unit (``visible``: what it includes). A name defined only elsewhere is
        linked when exactly one definition exists (an ``extern __device__`` function); with
        several, the call is left unresolved rather than tied to same-named functions of
        unrelated programs.
        """
        found = self.by_qualname.get(qualname) or self.by_name.get(_bare(name)) or []
        for scope in ({from_path}, visible):
            near = [d for d in found if d.fn.loc.path in scope]
            if near:
                return near
        return found if len(found) == 1 else []

    def enclosing(self, path: str, name: str, line: int) -> _Definition | None:
        """The innermost definition in ``path`` whose body holds ``line``.

        One whose name matches ``name`` wins; without one, any definition holding the line does
        (the front end may spell a method's name differently from its definition).
        """
        holding = [
            d
            for d in self.by_path.get(path, ())
            if d.fn.loc.line <= line <= max(d.fn.end_line, d.fn.loc.line)
        ]
        named = [d for d in holding if name and _bare(name) == d.fn.name]
        pool = named or holding
        return max(pool, key=lambda d: (d.fn.loc.line, d.node)) if pool else None


def _loc_key(loc) -> tuple:
    return (loc.path, loc.line, loc.column)


def _space_kind(space: str) -> str:
    return {"global": KERNEL, "device": DEVICE, "host-device": DEVICE}.get(space, HOST)


def build_graph(result: ScanResult) -> nx.DiGraph:
    """The include + call graph of a scan, with findings attached to file and function nodes."""
    g = nx.DiGraph(schema=GRAPH_SCHEMA, root=str(result.root))
    line_counts = {f.path: f.lines for f in result.files}

    def add_file(path: str) -> str:
        node = file_node(path)
        if node not in g:
            g.add_node(node, kind="file", path=path, lines=line_counts.get(path, 0), findings=[])
        return node

    for f in result.files:
        add_file(f.path)

    functions: dict[tuple, FunctionFact] = {}
    includes, calls, launches = {}, {}, {}
    for ff in result.facts:
        # every project file the parse read, not only those whose facts this unit carries: which
        # unit carries a shared header depends on which finished first
        visible = frozenset(ff.inputs) | frozenset(ff.files) | {ff.path}
        for fn in ff.functions:
            functions.setdefault((fn.loc.path, fn.loc.line, fn.qualname), fn)
        for inc in ff.includes:
            if inc.resolved:
                includes.setdefault((inc.loc, inc.resolved), inc)
        for c in ff.calls:
            calls.setdefault((c.loc, c.callee), (c, visible))
        for la in ff.launches:
            launches.setdefault((la.loc, la.kernel), (la, visible))

    index = _FunctionIndex(functions[k] for k in sorted(functions))

    for inc in sorted(includes.values(), key=lambda i: (i.loc.path, i.loc.line, i.loc.column)):
        src, dst = add_file(inc.loc.path), add_file(inc.resolved)
        if src != dst:
            g.add_edge(src, dst, kind="include", line=inc.loc.line)

    # Which host functions launch kernels decides which host functions become nodes at all.
    launch_edges: list[tuple[_Definition, _Definition, int]] = []
    launchers: set[str] = set()
    for la, visible in sorted(launches.values(), key=lambda x: _loc_key(x[0].loc)):
        caller = index.enclosing(la.loc.path, la.function, la.loc.line)
        if caller is None:
            continue
        for target in index.resolve(la.kernel, la.kernel, la.loc.path, visible):
            if target.fn.space == "global":
                launch_edges.append((caller, target, la.loc.line))
                launchers.add(caller.node)

    def add_function(d: _Definition) -> str:
        if d.node not in g:
            fn = d.fn
            kind = _space_kind(fn.space)
            g.add_node(
                d.node,
                kind=kind,
                name=fn.name,
                qualname=fn.qualname or fn.name,
                path=fn.loc.path,
                line=fn.loc.line,
                end_line=fn.end_line,
                space=fn.space,
                findings=[],
            )
            g.add_edge(add_file(fn.loc.path), d.node, kind="defines")
        return d.node

    for key in sorted(functions):
        fn = functions[key]
        d = _Definition(function_node(fn), fn)
        if fn.space != "host" or d.node in launchers:
            add_function(d)

    for caller, target, line in launch_edges:
        g.add_edge(add_function(caller), add_function(target), kind="launch", line=line)

    for c, visible in sorted(calls.values(), key=lambda x: _loc_key(x[0].loc)):
        caller = index.enclosing(c.loc.path, c.function, c.loc.line)
        if caller is None or caller.node not in g:
            continue
        for target in index.resolve(c.callee, c.qualname, c.loc.path, visible):
            if target.node in g and target.node != caller.node:
                if not g.has_edge(caller.node, target.node):
                    g.add_edge(caller.node, target.node, kind="call", line=c.loc.line)

    _attach_findings(g, result, index)
    return g


def _attach_findings(g: nx.DiGraph, result: ScanResult, index: _FunctionIndex) -> None:
    """Record each finding's index on its file node and on the function node holding its line."""
    for i, f in enumerate(result.findings):
        g.nodes[_ensure_file(g, f.path)]["findings"].append(i)
        d = index.enclosing(f.path, f.function, f.line)
        if d is not None and d.node in g:
            g.nodes[d.node]["findings"].append(i)


def _ensure_file(g: nx.DiGraph, path: str) -> str:
    node = file_node(path)
    if node not in g:
        g.add_node(node, kind="file", path=path, lines=0, findings=[])
    return node


def file_dependency_graph(g: nx.DiGraph) -> nx.DiGraph:
    """Files only: A -> B when A includes B or code in A calls or launches code defined in B."""
    files = nx.DiGraph()
    owner = {}
    for n, data in g.nodes(data=True):
        if data["kind"] == "file":
            files.add_node(data["path"])
        else:
            owner[n] = data["path"]
    for a, b, data in g.edges(data=True):
        if data["kind"] == "include":
            files.add_edge(g.nodes[a]["path"], g.nodes[b]["path"])
        elif data["kind"] in ("call", "launch") and owner[a] != owner[b]:
            files.add_edge(owner[a], owner[b])
    return files


def dependents(files: nx.DiGraph, path: str) -> set[str]:
    """Every file that depends on ``path``, directly or through other files (its fan-in)."""
    return nx.ancestors(files, path) if path in files else set()


def kernels(g: nx.DiGraph) -> list[str]:
    return sorted(n for n, d in g.nodes(data=True) if d["kind"] == KERNEL)


def graph_to_json(g: nx.DiGraph) -> dict:
    """Node-link JSON (the shape ``networkx.node_link_graph`` reads), deterministic order."""
    nodes = [{"id": n, **_plain(d)} for n, d in sorted(g.nodes(data=True))]
    links = [{"source": a, "target": b, **_plain(d)} for a, b, d in sorted(g.edges(data=True))]
    return {
        "directed": True,
        "multigraph": False,
        "graph": _plain(g.graph),
        "nodes": nodes,
        "links": links,
    }


def _plain(data: dict) -> dict:
    return {k: list(v) if isinstance(v, (list, tuple, set)) else v for k, v in data.items()}


def graph_summary(g: nx.DiGraph, result: ScanResult, top: int = 10) -> dict:
    """Counts and hot spots for the JSON report: what the graph says about the code base."""
    kinds = Counter(d["kind"] for _, d in g.nodes(data=True))
    edge_kinds = Counter(d["kind"] for _, _, d in g.edges(data=True))
    files = file_dependency_graph(g)
    cycles = sorted(sorted(c) for c in nx.strongly_connected_components(files) if len(c) > 1)

    def worst(node: str) -> int:
        return max(severity_rank(result.findings[i].severity) for i in g.nodes[node]["findings"])

    hot = sorted(
        (n for n, d in g.nodes(data=True) if d["findings"]),
        key=lambda n: (-worst(n), -len(g.nodes[n]["findings"]), n),
    )[:top]
    fan_in = sorted(
        ((len(dependents(files, p)), p) for p in files if files.in_degree(p)),
        key=lambda t: (-t[0], t[1]),
    )[:top]
    device_launchers = sorted(
        g.nodes[a]["qualname"]
        for a, _, d in g.edges(data=True)
        if d["kind"] == "launch" and g.nodes[a]["kind"] != HOST
    )
    return {
        "nodes": dict(sorted(kinds.items())),
        "edges": dict(sorted(edge_kinds.items())),
        "dependency_cycles": cycles,
        "device_side_launchers": sorted(set(device_launchers)),
        "most_included": [{"path": p, "dependents": n} for n, p in fan_in],
        "hot_spots": [
            {
                "node": n,
                "kind": g.nodes[n]["kind"],
                "path": g.nodes[n]["path"],
                "findings": len(g.nodes[n]["findings"]),
                "worst_severity": SEVERITIES[worst(n)],
            }
            for n in hot
        ],
    }
