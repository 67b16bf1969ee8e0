"""The JSON report: the stable, versioned output contract of design.md (``schema`` = 1).

Adding a key is compatible; renaming or removing one needs a new ``schema`` number.
"""

from __future__ import annotations

import json

from hipscan.baseline import fingerprints
from hipscan.model import ScanResult
from hipscan.report.context import ReportContext, summary

SCHEMA = 1


def report_dict(result: ScanResult, ctx: ReportContext) -> dict:
    ctx.ensure(result)
    effort = ctx.effort
    files = []
    for f in sorted(result.files, key=lambda f: f.path):
        entry = f.to_dict()
        fe = effort.files.get(f.path)
        if fe is not None:
            entry["findings"] = fe.count
            entry["effort_hours"] = fe.total.to_dict()
        files.append(entry)
    prints = fingerprints(result.findings)
    order = sorted(range(len(result.findings)), key=lambda i: result.findings[i].sort_key)
    findings = []
    for i in order:
        entry = result.findings[i].to_dict()
        entry["effort_hours"] = effort.findings[i].hours.to_dict()
        entry["fingerprint"] = prints[i]
        findings.append(entry)
    doc = {
        "tool": "hipscan",
        "version": ctx.version,
        "schema": SCHEMA,
        "root": str(result.root),
        "files": files,
        "findings": findings,
        "summary": summary(result, ctx),
        # the CUDA features in use (not findings): id, title, hipify, hip, files, uses, example
        "features": list(result.features),
    }
    if ctx.translations:
        doc["translations"] = ctx.translation_dicts()
    return doc


def render_json(result: ScanResult, ctx: ReportContext) -> str:
    return json.dumps(report_dict(result, ctx), indent=2, sort_keys=False) + "\n"
