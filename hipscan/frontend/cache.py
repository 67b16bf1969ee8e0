"""A content-hash cache of per-file facts, so re-scanning an unchanged tree skips libclang.

An entry is keyed by the file's path and bytes, the parse set-up (shim, flags, mode), the
identifiers the rules watch, the project's file list (which includes count as project code),
hipscan's version and the front end's source; it stores the hash of every project file the parse
read, and is used only while all of them are unchanged. Adding or removing a source file therefore
starts afresh.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from hipscan import __version__
from hipscan import facts as facts_module
from hipscan.facts import FileFacts

FORMAT = 5


def _facts_shape() -> str:
    """The fields of every fact class: a new field makes older entries unusable (they would
    unpickle without it), so it is part of the key."""
    parts = [
        f"{name}:{','.join(f.name for f in dataclasses.fields(cls))}"
        for name, cls in sorted(vars(facts_module).items())
        if isinstance(cls, type) and dataclasses.is_dataclass(cls)
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


SHAPE = _facts_shape()


def _code_digest() -> str:
    """The front end's own source: a change to how facts are taken (not only to their shape)
    makes older entries wrong, and between releases the version number does not move."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")) + [Path(facts_module.__file__)]:
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(path.name.encode())
    return h.hexdigest()[:16]


CODE = _code_digest()


class FactsCache:
    def __init__(self, folder: Path, setup_digest: str) -> None:
        self.folder = folder
        self.setup_digest = setup_digest
        self._hashes: dict[str, str | None] = {}

    def file_hash(self, path: Path) -> str | None:
        key = str(path)
        if key not in self._hashes:
            try:
                self._hashes[key] = hashlib.sha1(path.read_bytes()).hexdigest()
            except OSError:
                self._hashes[key] = None
        return self._hashes[key]

    def _entry(self, path: Path, args: tuple[str, ...]) -> Path | None:
        digest = self.file_hash(path)
        if digest is None:
            return None
        key = "\0".join([__version__, str(FORMAT), SHAPE, CODE, self.setup_digest, str(path), digest, *args])
        return self.folder / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".pickle")

    def get(self, path: Path, root: Path, args: tuple[str, ...]) -> FileFacts | None:
        entry = self._entry(path, args)
        if entry is None or not entry.is_file():
            return None
        try:
            with entry.open("rb") as f:
                inputs, facts = pickle.load(f)
        except Exception:  # a damaged or foreign entry is only a miss
            return None
        for rel, digest in inputs.items():
            if self.file_hash(root / rel) != digest:
                return None
        return facts

    def put(self, path: Path, root: Path, args: tuple[str, ...], facts: FileFacts) -> None:
        if facts.status.startswith(("error", "skipped")):
            return
        entry = self._entry(path, args)
        if entry is None:
            return
        inputs = {rel: self.file_hash(root / rel) for rel in facts.inputs}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                pickle.dump((inputs, facts), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, entry)
        except OSError:
            pass  # a cache that cannot be written only costs time
