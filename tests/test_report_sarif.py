"""SARIF 2.1.0: valid against the official schema, rule metadata, stable fingerprints."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import jsonschema

sys.path.insert(0, str(Path(__file__).parent))
from test_report_sample import moved, sample_result  # noqa: E402

from hipscan.report import ReportContext, render  # noqa: E402

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())


def validate(doc: dict) -> None:
    validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def sarif(result, ctx=None) -> dict:
    return json.loads(render("sarif", result, ctx))


def test_schema_is_the_official_one():
    assert SCHEMA["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    jsonschema.Draft4Validator.check_schema(SCHEMA)


def test_valid_against_the_schema(tmp_path):
    _, result = sample_result(tmp_path)
    result.files[0].status = "parse-errors"
    doc = sarif(result)
    validate(doc)
    assert doc["version"] == "2.1.0"


def test_validation_would_catch_a_broken_log(tmp_path):
    _, result = sample_result(tmp_path)
    doc = sarif(result)
    doc["runs"][0]["results"][0]["level"] = "fatal"
    errors = list(jsonschema.Draft4Validator(SCHEMA).iter_errors(doc))
    assert errors


def test_locations_rules_and_properties(tmp_path):
    p, result = sample_result(tmp_path)
    rules = {
        "HIP101": {
            "id": "HIP101",
            "title": "Device-side launch",
            "explanation": "HIP has no dynamic parallelism.",
            "remediation": "Launch from the host.",
            "references": ["https://rocm.docs.amd.com/"],
            "tags": ["cdp"],
        }
    }
    run = sarif(result, ReportContext(rules=rules))["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    by_rule = {r["ruleId"]: r for r in run["results"]}
    hit = by_rule["HIP101"]
    phys = hit["locations"][0]["physicalLocation"]
    loc = p.loc("src/tree.cu", "child<<<")
    assert phys["artifactLocation"] == {"uri": "src/tree.cu", "uriBaseId": "%SRCROOT%"}
    assert (phys["region"]["startLine"], phys["region"]["startColumn"]) == (loc.line, loc.column)
    assert hit["level"] == "error" and by_rule["HIP201"]["level"] == "warning"
    assert by_rule["HIP901"]["level"] == "note"
    rule = run["tool"]["driver"]["rules"][hit["ruleIndex"]]
    assert rule["id"] == "HIP101"
    assert rule["shortDescription"]["text"] == "Device-side launch"
    assert rule["fullDescription"]["text"] == "HIP has no dynamic parallelism."
    assert "Launch from the host." in rule["help"]["text"]
    assert rule["helpUri"] == "https://rocm.docs.amd.com/"
    assert rule["properties"]["category"] == "dynamic-parallelism"
    assert set(rule["properties"]["tags"]) >= {"cdp", "dynamic-parallelism"}
    # without metadata a rule still gets usable descriptions from its findings
    other = run["tool"]["driver"]["rules"][by_rule["HIP202"]["ruleIndex"]]
    assert other["shortDescription"]["text"] == "Full warp mask"


def test_fingerprints_survive_line_moves_and_separate_twins(tmp_path):
    _, result = sample_result(tmp_path)
    before = {r["ruleId"]: r["partialFingerprints"] for r in sarif(result)["runs"][0]["results"]}
    after_doc = sarif(moved(result, "src/tree.cu", 7))
    after = {r["ruleId"]: r["partialFingerprints"] for r in after_doc["runs"][0]["results"]}
    assert before == after
    assert (
        after_doc["runs"][0]["results"][-1]["locations"][0]["physicalLocation"]["region"]["startLine"] == 11
    )
    # two identical lines in one file get different fingerprints
    f = result.findings[0]
    result.findings = [f, replace(f, line=f.line + 3)]
    prints = [r["partialFingerprints"]["hipscan/v1"] for r in sarif(result)["runs"][0]["results"]]
    assert len(set(prints)) == 2
    # a changed source line is a different finding
    changed = [replace(result.findings[0], snippet="other code")]
    result.findings = changed
    assert sarif(result)["runs"][0]["results"][0]["partialFingerprints"]["hipscan/v1"] not in prints


def test_paths_with_spaces_are_uri_encoded(tmp_path):
    _, result = sample_result(tmp_path)
    result.findings = [replace(result.findings[0], path="my dir/a#b.cu")]
    doc = sarif(result)
    validate(doc)
    uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri["uri"] == "my%20dir/a%23b.cu"
