"""Per-file compiler flags from ``compile_commands.json``, filtered for an untrusted repository.

A compile database comes with the repository being scanned, so nobody vetted it. The parse needs
only where headers are and which macros are set; everything else is dropped, and in particular
every flag that could make libclang load code or read files the user did not name (plugins,
``-Xclang`` pass-through, ``-mllvm``, ``-B``, ``--config``, modules, sysroots). A response file
(``@file``) is read only when it lies inside the scanned tree.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from hipscan.config import ConfigError

# flags kept for the parse: with their value as the next argument, or joined to it
WITH_VALUE = ("-I", "-isystem", "-iquote", "-D", "-U", "-include")
JOINED = ("-isystem", "-iquote", "-I", "-D", "-U")
PATH_FLAGS = ("-I", "-isystem", "-iquote", "-include")
# understood but not passed on: the language is always CUDA, the architecture is information
INFO_WITH_VALUE = ("-x", "-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code")
INFO_JOINED = ("-arch=", "--gpu-architecture=", "-gencode=", "--generate-code=", "-code=", "--gpu-code=")
INFO_JOINED += ("--cuda-gpu-arch=", "--offload-arch=", "-x")
# what could load code or redirect where files are read: named in the scan's note when dropped
LOADERS = (
    "-Xclang",
    "-fplugin",
    "-fpass-plugin",
    "-load",
    "-mllvm",
    "-B",
    "--config",
    "-fmodule",
    "-fmodules",
    "-fprebuilt-module",
    "-fimplicit-module",
    "-imacros",
    "-include-pch",
    "-ccc-",
    "--driver-mode",
    "-cc1",
    "--sysroot",
    "-isysroot",
    "-resource-dir",
    "--cuda-path",
    "-Xpreprocessor",
    "-Xarch",
    "-fprofile",
    "-Xcompiler",
    "--compiler-options",
    "-ccbin",
    "--compiler-bindir",
)
LOADER_WITH_VALUE = (
    "-Xclang",
    "-load",
    "-mllvm",
    "-B",
    "--config",
    "-imacros",
    "-include-pch",
    "--sysroot",
    "-isysroot",
    "-resource-dir",
    "--cuda-path",
    "-Xpreprocessor",
    "-Xcompiler",
    "--compiler-options",
    "-ccbin",
    "--compiler-bindir",
)
MAX_RESPONSE_DEPTH = 4


@dataclass
class CompileDatabase:
    """Absolute source path -> the flags the parse uses; and what was dropped, for one note."""

    flags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)  # distinct loader flags and response files

    def drop(self, what: str) -> None:
        if what not in self.dropped:
            self.dropped.append(what)


def _inside(path: Path, root: Path | None) -> bool:
    if root is None:
        return False
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError):
        return False


def _expand(
    args: list[str], directory: Path, root: Path | None, db: CompileDatabase, depth: int = 0
) -> list[str]:
    """``@file`` arguments replaced by the file's arguments, when the file is inside the tree."""
    out: list[str] = []
    for a in args:
        if not a.startswith("@") or len(a) == 1:
            out.append(a)
            continue
        target = Path(a[1:])
        target = target if target.is_absolute() else directory / target
        if depth >= MAX_RESPONSE_DEPTH or not _inside(target, root) or not target.is_file():
            db.drop(f"{a} (response file outside the scanned tree or unreadable)")
            continue
        try:
            text = target.read_text(encoding="utf-8", errors="replace")
        except OSError:
            db.drop(f"{a} (unreadable response file)")
            continue
        out += _expand(shlex.split(text, posix=True), directory, root, db, depth + 1)
    return out


def _loader(a: str) -> bool:
    return a.startswith(LOADERS)


def filter_args(args: list[str], directory: Path, root: Path | None, db: CompileDatabase) -> tuple[str, ...]:
    """The parse flags of one compile command; loader flags are recorded in ``db.dropped``."""
    args = _expand(args, directory, root, db)
    kept: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a in WITH_VALUE and nxt is not None:
            value = nxt
            if a in PATH_FLAGS and not Path(value).is_absolute():
                value = str(directory / value)
            if a == "-include" and not (Path(value).is_file() and _inside(Path(value), root)):
                db.drop(f"-include {nxt} (not a regular file inside the scanned tree)")
            else:
                kept += [a, value]
            i += 2
            continue
        if a in INFO_WITH_VALUE and nxt is not None:
            i += 2
            continue
        if a.startswith(INFO_JOINED):
            i += 1
            continue
        if _loader(a):
            if a in LOADER_WITH_VALUE and nxt is not None:
                db.drop(f"{a} {nxt}")
                i += 2
            else:
                db.drop(a)
                i += 1
            continue
        if a.startswith("-std="):
            if "++" in a:
                kept.append(a)
        elif a.startswith(JOINED) and a not in WITH_VALUE:
            flag = next(p for p in JOINED if a.startswith(p))
            value = a[len(flag) :]
            if flag in PATH_FLAGS and value and not Path(value).is_absolute():
                value = str(directory / value)
            kept.append(flag + value)
        i += 1
    return tuple(kept)


def read_compile_commands(folder: Path, root: Path | None = None) -> CompileDatabase:
    """Read and check a compile database (a folder holding ``compile_commands.json``, or the
    file); a malformed one is a ConfigError naming the file and the entry."""
    db_path = folder / "compile_commands.json" if folder.is_dir() else folder
    try:
        data = json.loads(db_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{db_path}: no such file (-p wants a folder with compile_commands.json)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{db_path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{db_path}: not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(data, list):
        raise ConfigError(f"{db_path}: expected a list of compile commands, got a JSON {type(data).__name__}")
    db = CompileDatabase()
    for n, e in enumerate(data, 1):
        where = f"{db_path}: entry {n}"
        if not isinstance(e, dict):
            raise ConfigError(f"{where}: expected an object with 'file' and 'arguments' or 'command'")
        file, directory = e.get("file"), e.get("directory", ".")
        args, command = e.get("arguments"), e.get("command")
        if not isinstance(file, str) or not file:
            raise ConfigError(f"{where}: 'file' must be a non-empty string")
        if not isinstance(directory, str):
            raise ConfigError(f"{where}: 'directory' must be a string")
        if args is not None:
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise ConfigError(f"{where}: 'arguments' must be a list of strings")
        elif isinstance(command, str):
            try:
                args = shlex.split(command)
            except ValueError as exc:
                raise ConfigError(f"{where}: 'command' cannot be split: {exc}") from None
        else:
            raise ConfigError(f"{where}: needs 'arguments' (a list) or 'command' (a string)")
        base = Path(directory)
        if not base.is_absolute():
            base = db_path.parent / base
        path = Path(file)
        path = (base / path).resolve() if not path.is_absolute() else path.resolve()
        db.flags[str(path)] = filter_args(list(args[1:]), base, root, db)
    return db


def load_compile_commands(folder: Path, root: Path | None = None) -> dict[str, tuple[str, ...]]:
    """Absolute source path -> the flags that matter to a parse (includes, defines, standard)."""
    return read_compile_commands(folder, root).flags
