"""The rule-set cache: a stored set is the same as a fresh load, and a damaged entry is never used."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from hipscan import apitable
from hipscan.resources import rules_dir
from hipscan.rules import RuleFileError, load_rules
from hipscan.rules import cache as rcache

RULE = """
[[rule]]
id = "HIP1001"
name = "frob-call"
category = "unmapped-api"
severity = "high"
confidence = "high"
title = "frob"
message = "`{callee}` in {function}"
explanation = "x"
remediation = "Do not frob."
hipify = "x"
effort = "small"
[[rule.match]]
fact = "call"
callee = ["frob"]
callee_regex = "^frob[0-9]$"
"""


def _same(a, b) -> None:
    assert a.rules == b.rules  # every field: match blocks, compiled patterns, source paths
    assert a.claimed == b.claimed
    assert a.watched_identifiers == b.watched_identifiers
    assert {k: dict(v) for k, v in a._named.items()} == {k: dict(v) for k, v in b._named.items()}
    assert dict(a._generic) == dict(b._generic)
    assert a._order == b._order and a.table is b.table


def _entry(cache_dir: Path) -> Path:
    (entry,) = (cache_dir / "rules").glob("ruleset-*.pickle")
    return entry


@pytest.fixture(scope="module")
def fresh():
    return load_rules()


def test_cached_ruleset_equals_a_fresh_load(tmp_path: Path, fresh):
    first = load_rules(cache_dir=tmp_path)  # stores the entry
    entry = _entry(tmp_path)
    key = rcache.cache_key([rules_dir()])
    assert entry.name == f"ruleset-{key}.pickle"
    stored = rcache.read_entry(entry, key)
    assert stored is not None and stored is not first
    _same(stored, fresh)
    _same(load_rules(cache_dir=tmp_path), fresh)
    assert not list((tmp_path / "rules").glob("*.tmp"))  # written under a temporary name, renamed


def test_api_table_restored_from_rows(monkeypatch):
    table = apitable.load_api_table()
    rows = apitable.api_table_rows()
    monkeypatch.setattr(apitable, "_LOADED", [])  # as in a new process
    restored = apitable.adopt_api_table(rows)
    assert restored is not table and restored == table
    assert apitable.load_api_table() is restored


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b[:-100] + bytes(100),  # payload changed: checksum mismatch
        lambda b: b"garbage",
        lambda b: b"",
        lambda b: b.replace(b"hipscan-ruleset", b"hipscan-rulesex", 1),  # another format
    ],
)
def test_damaged_entry_falls_back_to_a_normal_load(tmp_path: Path, fresh, damage):
    load_rules(cache_dir=tmp_path)
    entry = _entry(tmp_path)
    entry.write_bytes(damage(entry.read_bytes()))
    key = rcache.cache_key([rules_dir()])
    assert rcache.read_entry(entry, key) is None
    _same(load_rules(cache_dir=tmp_path), fresh)
    assert rcache.read_entry(_entry(tmp_path), key) is not None  # written again


def test_well_formed_entry_of_the_wrong_shape_is_not_used(tmp_path: Path, fresh):
    key = rcache.cache_key([rules_dir()])
    entry = tmp_path / "rules" / f"ruleset-{key}.pickle"
    entry.parent.mkdir()
    payload = pickle.dumps({"rows": [("x",)], "state": {"rules": ["not a rule"]}})
    entry.write_bytes(rcache.FORMAT + key.encode() + b"\n" + rcache._digest(payload) + b"\n\n" + payload)
    assert rcache.read_entry(entry, key) is None
    _same(load_rules(cache_dir=tmp_path), fresh)


def test_key_follows_rule_files_and_errors_still_reported(tmp_path: Path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "a.toml").write_text(RULE)
    cache_dir = tmp_path / "cache"
    first = load_rules([mine], cache_dir=cache_dir)
    assert first.get("HIP1001").match[0].get("callee_regex").pattern == "^frob[0-9]$"
    (mine / "a.toml").write_text(RULE.replace("frob[0-9]", "frob[a-z]"))
    second = load_rules([mine], cache_dir=cache_dir)  # a new key: not the stored set
    assert second.get("HIP1001").match[0].get("callee_regex").pattern == "^frob[a-z]$"
    assert len(list((cache_dir / "rules").glob("ruleset-*.pickle"))) == 2
    (mine / "a.toml").write_text(RULE.replace('severity = "high"', 'severity = "huge"'))
    with pytest.raises(RuleFileError, match="severity"):
        load_rules([mine], cache_dir=cache_dir)
    with pytest.raises(RuleFileError, match="not a directory"):
        load_rules([tmp_path / "missing"], cache_dir=cache_dir)


def test_unwritable_cache_folder_is_not_an_error(tmp_path: Path, fresh):
    blocker = tmp_path / "file"
    blocker.write_text("x")  # the cache folder would have to be inside a file
    _same(load_rules(cache_dir=blocker), fresh)


def test_old_entries_and_stale_temporary_files_are_pruned(tmp_path: Path):
    import os

    folder = tmp_path / "rules"
    folder.mkdir()
    olds = [folder / f"ruleset-{i}.pickle" for i in range(5)]
    stale, fresh_tmp = folder / ".ruleset-x.pickle.1.tmp", folder / ".ruleset-y.pickle.2.tmp"
    for i, f in enumerate([*olds, stale, fresh_tmp]):
        f.write_bytes(b"x")
        os.utime(f, (1000 + i, 1000 + i))
    os.utime(fresh_tmp)  # being written now by another run
    load_rules(cache_dir=tmp_path)
    left = sorted(p.name for p in folder.iterdir())
    assert len([n for n in left if n.startswith("ruleset-")]) == rcache.KEEP
    assert "ruleset-4.pickle" in left and "ruleset-0.pickle" not in left
    assert stale.name not in left and fresh_tmp.name in left
