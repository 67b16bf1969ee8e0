"""What every report writer needs besides the scan: rule metadata, the graph, the effort estimate.

The graph and the estimate are computed once per scan and shared by all formats. Rule metadata
comes from the rule set when one is available; a plain mapping (rule id -> dict) works too, and
without either the writers fall back to what the findings themselves carry.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from hipscan import __version__
from hipscan.effort import EffortProfile, EffortReport, estimate
from hipscan.graph import build_graph, graph_summary
from hipscan.model import SEVERITIES, Finding, ScanResult
from hipscan.planning import Plan, plan


@dataclass(frozen=True, slots=True)
class RuleMeta:
    """The parts of a rule a report shows; every field has a usable fallback."""

    id: str
    name: str = ""
    title: str = ""
    category: str = ""
    severity: str = ""
    confidence: str = ""
    effort: str = ""
    explanation: str = ""
    remediation: str = ""
    hipify: str = ""
    references: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    doc_markdown: str = ""


def _field(obj: Any, key: str, default: Any = "") -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def rule_meta(rules: Any, finding: Finding) -> RuleMeta:
    """The finding's rule metadata from ``rules`` (RuleSet or mapping), else from the finding."""
    rule = None
    if rules is not None:
        if hasattr(rules, "get"):
            rule = rules.get(finding.rule) or rules.get(finding.name)
    if rule is None:
        return RuleMeta(
            id=finding.rule,
            name=finding.name,
            title=finding.name.replace("-", " ").capitalize() if finding.name else finding.rule,
            category=finding.category,
            severity=finding.severity,
            confidence=finding.confidence,
            effort=finding.effort,
            remediation=finding.fix,
        )
    doc = _field(rule, "doc_markdown", "")
    if callable(doc):
        doc = doc()
    return RuleMeta(
        id=str(_field(rule, "id", finding.rule)),
        name=str(_field(rule, "name", finding.name)),
        title=str(_field(rule, "title", "") or finding.name),
        category=str(_field(rule, "category", finding.category)),
        severity=str(_field(rule, "severity", finding.severity)),
        confidence=str(_field(rule, "confidence", finding.confidence)),
        effort=str(_field(rule, "effort", finding.effort)),
        explanation=str(_field(rule, "explanation", "")),
        remediation=str(_field(rule, "remediation", "") or finding.fix),
        hipify=str(_field(rule, "hipify", "")),
        references=tuple(str(r) for r in (_field(rule, "references", ()) or ())),
        tags=tuple(str(t) for t in (_field(rule, "tags", ()) or ())),
        doc_markdown=str(doc or ""),
    )


@dataclass(slots=True)
class ReportContext:
    rules: Any = None  # RuleSet, or {rule_id: {title, explanation, ...}}, or None
    graph: nx.DiGraph | None = None
    effort: EffortReport | None = None
    profile: EffortProfile | None = None
    translations: list | None = None  # FileTranslation objects or their to_dict() dicts
    version: str = __version__
    plan: Plan | None = None
    markdown_limit: int = 20  # findings listed in a Markdown PR comment
    excerpt_lines: int = 3  # lines of context either side in the HTML report
    _meta: dict[str, RuleMeta] = field(default_factory=dict)

    @classmethod
    def for_result(cls, result: ScanResult, **kwargs: Any) -> ReportContext:
        """A context with the graph and the estimate computed (once) for ``result``."""
        return cls(**kwargs).ensure(result)

    def ensure(self, result: ScanResult) -> ReportContext:
        if self.graph is None:
            self.graph = build_graph(result)
        if self.effort is None:
            self.effort = estimate(result, self.graph, self.profile)
        if self.plan is None:
            self.plan = plan(result, self.effort, self.graph, self.rules)
        return self

    def rule(self, finding: Finding) -> RuleMeta:
        meta = self._meta.get(finding.rule)
        if meta is None:
            meta = self._meta[finding.rule] = rule_meta(self.rules, finding)
        return meta

    def translation_dicts(self) -> list[dict]:
        return [t if isinstance(t, dict) else t.to_dict() for t in (self.translations or ())]


def summary(result: ScanResult, ctx: ReportContext) -> dict:
    """The ``summary`` block shared by the JSON, Markdown and HTML reports."""
    ctx.ensure(result)
    sev = Counter(f.severity for f in result.findings)
    cat = Counter(f.category for f in result.findings)
    status = Counter(f.status.split(":")[0] for f in result.files)
    return {
        "files": len(result.files),
        "lines": sum(f.lines for f in result.files),
        "file_status": dict(sorted(status.items())),
        "findings": len(result.findings),
        "by_severity": {s: sev[s] for s in reversed(SEVERITIES) if sev[s]},
        "by_category": dict(sorted(cat.items(), key=lambda kv: (-kv[1], kv[0]))),
        "rules": len({f.rule for f in result.findings}),
        "seconds": round(result.seconds, 3),
        "mode": result.mode,
        "readiness": ctx.effort.readiness,
        "effort": ctx.effort.to_dict(result.findings),
        "graph": graph_summary(ctx.graph, result),
        "planning": ctx.plan.to_dict(),
    }
