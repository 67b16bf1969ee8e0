"""SARIF 2.1.0 for code-scanning services (GitHub, Azure DevOps, IDE viewers).

Locations are relative to ``%SRCROOT%`` so the log does not depend on the checkout folder, and
``partialFingerprints`` come from :func:`hipscan.baseline.fingerprints` (no line numbers), so an
alert survives unrelated edits above it instead of being closed and reopened.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from hipscan.baseline import fingerprints
from hipscan.model import ScanResult
from hipscan.report.context import ReportContext, RuleMeta

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "hipscan/v1"

LEVEL = {"blocker": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
PRECISION = {"high": "high", "medium": "medium", "low": "low"}
PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


def _help_markdown(meta: RuleMeta) -> str:
    if meta.doc_markdown:
        return meta.doc_markdown
    parts = [f"**{meta.title or meta.id}**"]
    if meta.explanation:
        parts.append(meta.explanation)
    if meta.remediation:
        parts.append(f"**Remediation:** {meta.remediation}")
    if meta.references:
        parts.append("\n".join(f"- {r}" for r in meta.references))
    return "\n\n".join(parts)


def _help_text(meta: RuleMeta) -> str:
    parts = [p for p in (meta.explanation, meta.remediation and f"Fix: {meta.remediation}") if p]
    return "\n\n".join(parts) or meta.title or meta.id


def _descriptor(meta: RuleMeta, severity: str) -> dict:
    level = LEVEL.get(meta.severity or severity, "warning")
    desc = {
        "id": meta.id,
        "name": meta.name or meta.id,
        "shortDescription": {"text": meta.title or meta.name or meta.id},
        "fullDescription": {"text": meta.explanation or meta.title or meta.id},
        "help": {"text": _help_text(meta), "markdown": _help_markdown(meta)},
        "defaultConfiguration": {"level": level},
        "properties": {
            "category": meta.category,
            "severity": meta.severity or severity,
            "confidence": meta.confidence,
            "effort": meta.effort,
            "precision": PRECISION.get(meta.confidence, "medium"),
            "problem.severity": PROBLEM_SEVERITY[level],
            "tags": sorted({"rocm-portability", meta.category, *meta.tags} - {""}),
        },
    }
    url = next((r for r in meta.references if r.startswith(("https://", "http://"))), "")
    if url:
        desc["helpUri"] = url
    return desc


def _artifact(path: str) -> dict:
    if PurePosixPath(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path, safe="/"), "uriBaseId": "%SRCROOT%"}


def sarif_dict(result: ScanResult, ctx: ReportContext) -> dict:
    ctx.ensure(result)
    order = sorted(range(len(result.findings)), key=lambda i: result.findings[i].sort_key)
    prints = fingerprints(result.findings)
    rule_ids: list[str] = []
    descriptors: list[dict] = []
    index: dict[str, int] = {}
    for i in sorted(order, key=lambda i: result.findings[i].rule):
        f = result.findings[i]
        if f.rule not in index:
            index[f.rule] = len(rule_ids)
            rule_ids.append(f.rule)
            descriptors.append(_descriptor(ctx.rule(f), f.severity))

    results = []
    for i in order:
        f = result.findings[i]
        region = {"startLine": max(1, f.line), "startColumn": max(1, f.column)}
        if f.snippet:
            region["snippet"] = {"text": f.snippet}
        entry = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": LEVEL.get(f.severity, "warning"),
            "message": {"text": f.message or ctx.rule(f).title or f.rule},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(f.path), "region": region}}],
            "partialFingerprints": {FINGERPRINT_KEY: prints[i]},
            "properties": {
                "category": f.category,
                "severity": f.severity,
                "confidence": f.confidence,
                "effort": f.effort,
                "effortHours": ctx.effort.findings[i].hours.to_dict(),
            },
        }
        if f.function:
            entry["locations"][0]["logicalLocations"] = [{"name": f.function, "kind": "function"}]
        if f.fix:
            entry["properties"]["remediation"] = f.fix
        if f.related:  # the uses a warp-width constant reaches, or the root a use comes from
            entry["relatedLocations"] = [
                {
                    "id": n,
                    "physicalLocation": {
                        "artifactLocation": _artifact(r.path),
                        "region": {"startLine": max(1, r.line), "startColumn": max(1, r.column)},
                    },
                    "message": {"text": "defined here" if r.role == "definition" else r.role},
                }
                for n, r in enumerate(f.related)
            ]
        results.append(entry)

    root_uri = Path(result.root).resolve().as_uri().rstrip("/") + "/"
    run = {
        "tool": {
            "driver": {
                "name": "hipscan",
                "version": ctx.version,
                "semanticVersion": ctx.version,
                "rules": descriptors,
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
        "invocations": [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": _notifications(result),
            }
        ],
        "results": results,
        "properties": {
            "readiness": ctx.effort.readiness,
            "personDays": ctx.effort.person_days.to_dict(),
            "mode": result.mode,
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _notifications(result: ScanResult) -> list[dict]:
    """Files that did not parse cleanly, so a reader knows where findings may be missing."""
    out = []
    for f in sorted(result.files, key=lambda f: f.path):
        if f.status == "ok":
            continue
        out.append(
            {
                "level": "warning" if f.status == "parse-errors" else "note",
                "message": {"text": f"{f.path}: {f.status} ({f.error_count} error(s))"},
                "locations": [{"physicalLocation": {"artifactLocation": _artifact(f.path)}}],
            }
        )
    return out


def render_sarif(result: ScanResult, ctx: ReportContext) -> str:
    return json.dumps(sarif_dict(result, ctx), indent=2) + "\n"
