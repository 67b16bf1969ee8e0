"""The effort model: per-finding hours, repeats, fan-in, terms, readiness and migration order."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_report_sample import sample_result  # noqa: E402

from hipscan.effort import Hours, ProfileError, estimate, load_profile  # noqa: E402


def approx(h: Hours, low, likely, high):
    return (
        h.low == pytest.approx(low) and h.likely == pytest.approx(likely) and (h.high == pytest.approx(high))
    )


def by_rule(result, report, rule):
    (i,) = [i for i, f in enumerate(result.findings) if f.rule == rule]
    return report.findings[i]


def test_pert_mean_and_sums():
    h = Hours(1, 2, 9) + Hours(1, 2, 3)
    assert (h.low, h.likely, h.high) == (2, 4, 12)
    assert h.mean == pytest.approx((2 + 16 + 12) / 6)
    assert h.scale(0.5).to_dict() == {"low": 1.0, "likely": 2.0, "high": 6.0, "mean": 2.5}


def test_per_finding_hours_follow_the_profile(tmp_path):
    _, result = sample_result(tmp_path)
    r = estimate(result)
    p = load_profile()
    fan = 1 + p.fan_in_per_dependent * 3  # warp.cuh is a header three files depend on

    def hours(cls, k=1.0):
        h = p.hours[cls]
        return h.low * k, h.likely * k, h.high * k

    warp = by_rule(result, r, "HIP201")
    assert warp.fan_in == 3 and approx(warp.hours, *hours("medium", fan))
    assert approx(by_rule(result, r, "HIP202").hours, *hours("small", fan))
    assert approx(by_rule(result, r, "HIP301").hours, *hours("large"))  # nobody includes it
    assert approx(by_rule(result, r, "HIP101").hours, *hours("rewrite"))
    assert approx(by_rule(result, r, "HIP901").hours, *hours("trivial", p.confidence["medium"]))
    assert approx(
        r.manual,
        *(
            sum(x)
            for x in zip(*[(f.hours.low, f.hours.likely, f.hours.high) for f in r.findings], strict=True)
        ),
    )


def test_repeats_of_one_rule_in_one_file_decay(tmp_path):
    _, result = sample_result(tmp_path)
    p = load_profile()
    first = next(f for f in result.findings if f.rule == "HIP301")
    result.findings = [replace(first, line=first.line + k) for k in range(6)]
    r = estimate(result)
    factors = [fe.factor for fe in sorted(r.findings, key=lambda fe: fe.repeat)]
    assert factors == pytest.approx([max(p.repeat_decay**n, p.repeat_floor) for n in range(6)])
    assert factors[:2] == pytest.approx([1, p.repeat_decay])
    # the same rule in a further file starts again, at the project-wide repeat rate
    other = replace(first, path="src/tree.cu")
    result.findings.append(other)
    assert estimate(result).findings[-1].factor == pytest.approx(p.project_decay)
    # ... which never falls below its floor however many files repeat the rule
    result.findings = [replace(first, path=f"src/f{k:02d}.cu") for k in range(20)]
    factors = [fe.factor for fe in estimate(result).findings]
    assert factors[0] == pytest.approx(1.0) and factors[1] == pytest.approx(p.project_decay)
    assert factors[-1] == pytest.approx(p.project_floor)


def test_translation_and_build_terms(tmp_path):
    _, result = sample_result(tmp_path)
    r = estimate(result)
    p = load_profile()
    # CUDA files: warp.cuh (5 lines), reduce.cu (9), tree.cu (9); not plain.cpp, not CMake
    cuda = sorted(p for p, fe in r.files.items() if fe.cuda)
    assert cuda == ["common/warp.cuh", "src/reduce.cu", "src/tree.cu"]
    lines = 6 + 9 + 9
    calls = (
        r.translation.likely
        - 3 * p.translation_per_file.likely
        - p.translation_per_kloc.likely * lines / 1000
    )
    # what is left is renamed API calls and device templates, each priced by the profile
    assert calls >= 0
    expect = (
        p.translation_per_file.scale(3)
        + p.translation_per_kloc.scale(lines / 1000)
        + p.translation_per_call.scale(_renamed(result))
    )
    assert approx(r.translation, expect.low, expect.likely, expect.high)
    assert r.build_files == ["CMakeLists.txt"]
    # one CMake build file naming CUDA, no library linked: a first build (with its device
    # templates) plus that file
    build = p.build_first + p.build_per_template.scale(_templates(result)) + p.build_tool["cmake"]
    assert approx(r.build, build.low, build.likely, build.high)
    assert r.files["src/plain.cpp"].total == Hours()
    assert approx(
        r.total,
        *(getattr(r.manual + r.translation + r.build, k) for k in ("low", "likely", "high")),
    )
    assert r.person_days.likely == pytest.approx(r.total.likely / 8)


def _renamed(result) -> int:
    from hipscan.effort import _renamed_calls

    return sum(_renamed_calls(result).values())


def _templates(result) -> int:
    from hipscan.effort import _device_templates

    return sum(_device_templates(result).values())


def test_header_findings_carry_into_dependents(tmp_path):
    _, result = sample_result(tmp_path)
    r = estimate(result)
    header = r.files["common/warp.cuh"].findings
    assert r.files["src/reduce.cu"].inherited_findings == 2
    assert approx(r.files["src/reduce.cu"].inherited, header.low, header.likely, header.high)
    assert r.files["common/warp.cuh"].fan_in == 3


def test_kernel_effort_includes_what_it_reaches(tmp_path):
    _, result = sample_result(tmp_path)
    r = estimate(result)
    k = {x.name: x for x in r.kernels}
    header = r.files["common/warp.cuh"].findings
    assert k["child"].findings == 2 and approx(k["child"].hours, header.low, header.likely, header.high)
    assert k["parent"].findings == 3 and k["parent"].reaches == 2  # child, warp_sum
    assert r.kernels[0].name == "parent"  # costliest first


def test_directories_sum_their_files(tmp_path):
    _, result = sample_result(tmp_path)
    r = estimate(result)
    src = r.files["src/reduce.cu"].total + r.files["src/tree.cu"].total
    assert approx(r.directories["src"], src.low, src.likely, src.high)


def test_readiness(tmp_path):
    _, result = sample_result(tmp_path)
    r = estimate(result)
    parts = r.readiness_parts
    mechanical = r.translation.likely + r.build.likely
    ease = mechanical / (mechanical + r.manual.likely)
    assert parts["ease"] == pytest.approx(ease, abs=1e-4)
    assert parts["blocker_files"] == 1 and parts["cuda_files"] == 3
    assert r.readiness == round(100 * ease * (1 - 0.5 / 3))
    assert r.blockers == [i for i, f in enumerate(result.findings) if f.severity == "blocker"]

    result.findings = []
    clean = estimate(result)
    assert clean.readiness == 100 and clean.blockers == []

    # only mechanical work plus one blocker, no share penalty: still capped below "ready"
    profile = tmp_path / "no-share.toml"
    profile.write_text("[readiness]\nblocker_weight = 0.0\n")
    _, result = sample_result(tmp_path / "again")
    result.findings = [replace(f, effort="trivial") for f in result.findings if f.rule == "HIP101"]
    capped = estimate(result, profile=load_profile(profile))
    assert capped.readiness_parts["ease"] > 0.95
    assert capped.readiness == 89 and capped.readiness_parts["capped"]


def test_migration_order_is_leaves_first(tmp_path):
    _, result = sample_result(tmp_path)
    r = estimate(result)
    order = {p.files: p for p in r.order}
    headers = order[("common/config.h", "common/warp.cuh")]  # a cycle moves together
    tree = order[("src/tree.cu",)]
    assert tree.depends_on == (headers.number,)
    assert headers.number < tree.number and headers.number < order[("src/reduce.cu",)].number
    assert tree.kernels == ("child", "parent") and tree.blockers == 1
    assert [p.number for p in r.order] == list(range(1, len(r.order) + 1))
    assert estimate(result).to_dict() == r.to_dict()  # deterministic


def test_user_profile_overrides_and_validation(tmp_path):
    user = tmp_path / "profile.toml"
    user.write_text('name = "team"\n[hours]\nrewrite = [80, 120, 200]\n[repeat]\ndecay = 0.8\n')
    p = load_profile(user)
    assert p.name == "team" and p.hours["rewrite"] == Hours(80, 120, 200)
    assert p.hours["small"] == load_profile().hours["small"] and p.repeat_decay == 0.8
    _, result = sample_result(tmp_path / "proj")
    assert approx(by_rule(result, estimate(result, profile=p), "HIP101").hours, 80, 120, 200)

    user.write_text("[hours]\nhuge = [1, 2, 3]\n")
    with pytest.raises(ProfileError, match=r"profile.toml: hours.huge: unknown key"):
        load_profile(user)
    user.write_text("[hours]\nsmall = [3, 2, 1]\n")
    with pytest.raises(ProfileError, match=r"hours.small: expected \[low, likely, high\]"):
        load_profile(user)
    user.write_text("[repeat]\ndecay = 2\n")
    with pytest.raises(ProfileError, match=r"repeat.decay"):
        load_profile(user)
