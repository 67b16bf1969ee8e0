"""The planning view: components, their readiness and effort, blockers grouped by rule."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from test_report_sample import sample_result  # noqa: E402

from hipscan.effort import estimate  # noqa: E402
from hipscan.graph import build_graph  # noqa: E402
from hipscan.planning import _folder_depth, plan  # noqa: E402
from hipscan.report import ReportContext, render  # noqa: E402


def test_folder_depth_splits_a_tree_held_by_one_folder():
    samples = [f"Samples/{c}/s{i}/main.cu" for c in ("0_Intro", "1_Utils", "2_Concepts") for i in range(3)]
    assert _folder_depth(samples + ["Common/helper.h"]) == 2  # "Samples" alone holds 90%
    assert _folder_depth(["lib/a.cu", "lib/b.cu", "include/a.h"]) == 1
    assert _folder_depth(["src/a.cu", "src/b.cu"]) == 1  # nothing deeper splits it
    assert _folder_depth([]) == 1  # a scan of build files that found nothing


def test_components_roll_up_files_findings_and_hours(tmp_path):
    _, result = sample_result(tmp_path)
    g = build_graph(result)
    effort = estimate(result, g)
    p = plan(result, effort, g)
    by_name = {c.name: c for c in p.components}
    assert sum(c.findings for c in p.components) == len(result.findings)
    hours = sum(c.hours.likely for c in p.components)
    assert abs(hours - (effort.manual.likely + effort.translation.likely)) < 1e-6
    assert all(0 <= c.readiness <= 100 for c in p.components)
    assert all(c.files for c in p.components)
    # components come costliest first, and depend on the components their files include
    assert p.components == sorted(p.components, key=lambda c: (-c.hours.likely, c.name))
    names = set(by_name)
    assert all(a in names and b in names for a, b, _ in p.edges)


def test_blockers_grouped_by_rule_with_locations(tmp_path):
    _, result = sample_result(tmp_path)
    blocker = next(f for f in result.findings if f.severity == "blocker")
    result.findings += [replace(blocker, line=blocker.line + k) for k in (1, 2)]
    result.findings.sort(key=lambda f: f.sort_key)
    g = build_graph(result)
    p = plan(result, estimate(result, g), g)
    group = next(x for x in p.blockers_by_rule if x.rule == blocker.rule)
    assert group.count == sum(f.rule == blocker.rule for f in result.findings)
    assert f"{blocker.path}:{blocker.line}:{blocker.column}" in group.locations


def test_reports_carry_the_planning_view(tmp_path):
    _, result = sample_result(tmp_path)
    ctx = ReportContext.for_result(result)
    doc = json.loads(render("json", result, ctx))
    planning = doc["summary"]["planning"]
    assert planning["components"] and planning["component_kind"] in ("folder", "cmake-target")
    assert {"name", "readiness", "hours", "blockers", "rules"} <= set(planning["components"][0])
    html = render("html", result, ctx)
    assert 'id="plan"' in html and "Costliest rules" in html
    md = render("markdown", result, ctx)
    assert "Costliest rules:" in md and len(md) < 65536
