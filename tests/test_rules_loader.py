"""Rule files: a malformed file is a RuleFileError naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipscan.rules import RuleFileError, load_rules

GOOD = """
[[rule]]
id = "HIP1001"
name = "my-rule"
category = "timers"
severity = "low"
confidence = "high"
title = "t"
message = "`{callee}` called"
explanation = "e"
remediation = "r"
hipify = "h"
effort = "trivial"
[[rule.match]]
fact = "call"
callee = ["frob"]
"""


def write(tmp_path: Path, text: str, name: str = "bad.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "old,new,key,words",
    [
        (
            'effort = "trivial"',
            'effort = "trivial"\ncolour = "red"',
            "rule[0](HIP1001).colour",
            "unknown key",
        ),
        ('category = "timers"', 'category = "time"', "rule[0](HIP1001).category", "not one of"),
        ('severity = "low"', 'severity = "critical"', "rule[0](HIP1001).severity", "not one of"),
        (
            'confidence = "high"',
            "confidence = 3",
            "rule[0](HIP1001).confidence",
            "must be a string",
        ),
        (
            'callee = ["frob"]',
            'callee = ["frob"]\ncalee = ["x"]',
            "rule[0](HIP1001).match[0].calee",
            "unknown key",
        ),
        ('callee = ["frob"]', "callee = 3", "rule[0](HIP1001).match[0].callee", "list of strings"),
        ('fact = "call"', 'fact = "calls"', "rule[0](HIP1001).match[0].fact", "must be one of"),
        (
            'callee = ["frob"]',
            'callee_regex = "("',
            "rule[0](HIP1001).match[0].callee_regex",
            "regular expression",
        ),
        (
            'callee = ["frob"]',
            'context = ["kernel"]',
            "rule[0](HIP1001).match[0].context",
            "unknown context",
        ),
        (
            'message = "`{callee}` called"',
            'message = "{kernel} launched"',
            "rule[0](HIP1001).message",
            "{kernel}",
        ),
        ('id = "HIP1001"', 'id = "X1"', "rule[0](X1).id", "HIP101"),
        ('name = "my-rule"', 'name = "My Rule"', "rule[0](HIP1001).name", "kebab"),
        ('title = "t"\n', "", "rule[0](HIP1001).title", "missing required key"),
        (
            'callee = ["frob"]',
            'arg = [{ index = 0, regexp = "x" }]',
            "rule[0](HIP1001).match[0].arg[0].regexp",
            "unknown key",
        ),
        (
            'callee = ["frob"]',
            'arg = [{ regex = "x" }]',
            "rule[0](HIP1001).match[0].arg[0].index",
            "missing",
        ),
    ],
)
def test_malformed_rule_names_file_and_key(tmp_path, old, new, key, words):
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(RuleFileError) as err:
        load_rules([tmp_path])
    e = err.value
    assert e.path == str(path) and e.key == key
    assert words in e.message
    assert str(e) == f"{path}: {key}: {e.message}"


def test_toml_syntax_error(tmp_path):
    path = write(tmp_path, GOOD + "\n[[rule]\n")
    with pytest.raises(RuleFileError) as err:
        load_rules([tmp_path])
    assert err.value.path == str(path) and err.value.key == "toml"


def test_unknown_top_level_key(tmp_path):
    write(tmp_path, "[meta]\nx = 1\n" + GOOD)
    with pytest.raises(RuleFileError, match=r"bad.toml: meta: unknown top-level key"):
        load_rules([tmp_path])


def test_duplicate_id_within_and_across_files(tmp_path):
    write(tmp_path, GOOD + GOOD.replace('name = "my-rule"', 'name = "other"'))
    with pytest.raises(RuleFileError, match=r"rule\[1\]\(HIP1001\)\.id: duplicate id"):
        load_rules([tmp_path])


def test_duplicate_of_a_builtin_id(tmp_path):
    write(tmp_path, GOOD.replace("HIP1001", "HIP101"))
    with pytest.raises(RuleFileError, match="duplicate id"):
        load_rules([tmp_path])


def test_missing_directory(tmp_path):
    with pytest.raises(RuleFileError, match="not a directory"):
        load_rules([tmp_path / "nope"])


def test_single_match_table_is_accepted(tmp_path):
    write(tmp_path, GOOD.replace("[[rule.match]]", "[rule.match]"), "ok.toml")
    rs = load_rules([tmp_path], builtin=False)
    assert [r.id for r in rs.rules] == ["HIP1001"]
