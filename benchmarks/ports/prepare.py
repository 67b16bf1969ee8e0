"""Cut the CUDA original (or the ROCm view) of each code base out of a local git copy.

    python3 benchmarks/ports/prepare.py --git deepspeed=/path/to/DeepSpeed.git ... OUT
    python3 benchmarks/ports/prepare.py --mirrors DIR OUT      # DIR/<owner>+<name>/repo or DIR/<name>

Fetches nothing: each code base must already be a git directory (bare or not) holding the
commit named in codebases.toml. The folders listed under `paths` are exported with
`git archive` into OUT/<name>/ and every C/C++/CUDA file is passed through `unifdef -l` with
the code base's `cuda` arguments (or `hip` ones with --view hip), so the HIP arms are gone; uses
of a code base's arm-picking macros (`AMREX_HIP_OR_CUDA(hip, cuda)`) are replaced by the CUDA (or
HIP) argument. Every line keeps its number: a label's line is the same in the CUDA original, the ROCm view
and the upstream file.

Build files (CMake, setup.py, Makefiles) cannot be cut with unifdef: a `<name>-build` code base
names the commit that added ROCm support (`commit`, the ROCm view) and the commit before it
(`before`, the CUDA original), and its `paths` are the build files. Its labels are on the lines of
the `before` files, which keep their upstream numbers there.
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
SOURCE_SUFFIXES = (
    ".cu",
    ".cuh",
    ".h",
    ".hh",
    ".hpp",
    ".hxx",
    ".c",
    ".cc",
    ".cpp",
    ".cxx",
    ".inl",
    ".H",
    ".tcc",
)


@dataclass(frozen=True)
class CodeBase:
    """One code base as codebases.toml describes it."""

    name: str
    repo: str
    commit: str
    arm: str
    paths: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    cuda: tuple[str, ...] = ()
    hip: tuple[str, ...] = ()
    scan_args: tuple[str, ...] = ()
    arm_macros: tuple[tuple[str, int, int], ...] = ()  # (macro, CUDA argument, HIP argument), 1-based
    pairs: tuple[tuple[str, str], ...] = ()  # (CUDA file, its ROCm port in a separate file)
    hip_repo: str = ""  # where the ports in `pairs` live, when not in `repo` (a separate port)
    hip_commit: str = ""
    renames: tuple[tuple[str, str], ...] = ()  # the code base's own CUDA -> HIP naming, for hunks.py
    hip_drop: tuple[str, ...] = ()  # files a ROCm build does not compile: left out of the ROCm view
    before: str = ""  # build files: the commit before the port landed (the CUDA original)


def load_codebases(path: Path = HERE / "codebases.toml") -> list[CodeBase]:
    """Read the code bases, in file order."""
    data = tomllib.loads(path.read_text())
    out = []
    for name, entry in data.items():
        out.append(
            CodeBase(
                name=name,
                repo=entry["repo"],
                commit=entry["commit"],
                arm=entry.get("arm", ""),
                paths=tuple(entry["paths"]),
                exclude=tuple(entry.get("exclude", ())),
                cuda=tuple(entry.get("cuda", ())),
                hip=tuple(entry.get("hip", ())),
                scan_args=tuple(entry.get("scan_args", ())),
                arm_macros=tuple((m["name"], m["cuda"], m["hip"]) for m in entry.get("arm_macros", ())),
                pairs=tuple((a, b) for a, b in entry.get("pairs", ())),
                hip_repo=entry.get("hip_repo", ""),
                hip_commit=entry.get("hip_commit", ""),
                renames=tuple((a, b) for a, b in entry.get("renames", ())),
                hip_drop=tuple(entry.get("hip_drop", ())),
                before=entry.get("before", ""),
            )
        )
    return out


def find_git(
    cb: CodeBase, mirrors: Path | None, explicit: dict[str, Path], view: str = "cuda"
) -> Path | None:
    """The git directory holding a code base: --git NAME=PATH (NAME-hip=PATH for a port kept
    in another repository), or a folder under --mirrors."""
    name, repo = cb.name, cb.repo
    if view == "hip" and cb.hip_repo:
        name, repo = f"{cb.name}-hip", cb.hip_repo
    if name in explicit:
        return explicit[name]
    if mirrors is None:
        return None
    owner_name = repo.replace("/", "+")
    for cand in (
        mirrors / owner_name / "repo",
        mirrors / owner_name,
        mirrors / name,
        mirrors / repo.split("/")[1],
    ):
        if cand.exists():
            return cand
    return None


def excluded(rel: str, globs: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(rel, g) or rel.startswith(g.rstrip("/") + "/") for g in globs)


def export(cb: CodeBase, git_dir: Path, dest: Path, view: str = "cuda") -> list[Path]:
    """Write the code base's folders at its commit under dest; return the files written.

    For a code base ported file by file (`pairs`), the ROCm view holds each port under the name
    of the CUDA file it replaces, so the two views compare path by path."""
    renames: dict[str, str] = {}
    paths = list(cb.paths)
    if view == "hip" and cb.pairs:
        to_hip = dict(cb.pairs)
        renames = {hip: cuda for cuda, hip in cb.pairs}
        paths = [to_hip.get(p, p) for p in paths]
    git = f"--git-dir={git_dir}" if (git_dir / "HEAD").exists() else f"-C{git_dir}"
    commit = cb.hip_commit if view == "hip" and cb.hip_repo else cb.commit
    if view == "cuda" and cb.before:  # build files: the CUDA original is the tree before the port
        commit = cb.before
    proc = subprocess.run(["git", git, "archive", commit, *paths], capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{cb.name}: git archive failed: {proc.stderr.decode().strip().splitlines()[-1:]}")
    written = []
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        # a port kept under the same name in its own repository is the file itself
        ported = {cuda for cuda, hip in cb.pairs if cuda != hip} if renames else set()
        for member in tar.getmembers():
            if not member.isfile() or member.name in ported:
                continue  # in the ROCm view a ported file's place holds its port
            if member.name not in renames and excluded(member.name, cb.exclude):
                continue
            if view == "hip" and member.name in cb.hip_drop:
                continue
            target = dest / renames.get(member.name, member.name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(member).read())
            written.append(target)
    return written


# A number with digit separators: a digit, then digits (or a base prefix), each separator between two digits.
DIGIT_SEPARATED = re.compile(r"\b\d[0-9a-fA-FxXbB]*(?:'[0-9a-fA-F]+)+")


def unifdef(path: Path, args: tuple[str, ...]) -> str | None:
    """Run unifdef -l in place (removed lines become blank); return an error line or None.

    unifdef reads a C++14 digit separator (`0xff'ff'ff'ffu`) as an unterminated character
    literal and stops, so numbers are written without separators for the run and each kept
    line is given back its original text afterwards (every line keeps its number); a file whose
    last line has no newline gets one (unifdef reports "EOF in comment" otherwise)."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):  # unifdef stops at a file's unterminated last line
        path.write_bytes(data + b"\n")
    original = path.read_text(errors="surrogateescape")
    plain = DIGIT_SEPARATED.sub(lambda m: m.group().replace("'", ""), original)
    if plain != original:
        path.write_text(plain, errors="surrogateescape")
    proc = subprocess.run(
        ["unifdef", "-l", *args, "-o", str(path), str(path)], capture_output=True, text=True
    )
    if plain != original:
        out = path.read_text(errors="surrogateescape").split("\n")
        before, now = original.split("\n"), plain.split("\n")
        for i, line in enumerate(out):
            if i < len(now) and line == now[i] and now[i] != before[i]:
                out[i] = before[i]
        path.write_text("\n".join(out), errors="surrogateescape")
    if proc.returncode not in (0, 1):
        return f"{path}: unifdef: {(proc.stderr.strip().splitlines() or ['failed'])[-1]}"
    return None


def settle_defined(text: str, args: tuple[str, ...]) -> str:
    """Write `defined(M)` as 0 or 1 in the directives unifdef left, for each macro the view
    undefines (-UM) or defines (-DM), keeping every line at its number.

    unifdef resolves a condition only when its whole value is known, so `#if X || defined(USE_ROCM)`
    stays as it is with -UUSE_ROCM; a scan of the CUDA original would then see the port's switch and
    read the arm as one a HIP build already takes care of."""
    values, given = {}, {}
    for arg in args:
        if arg[:2] in ("-U", "-D") and len(arg) > 2:
            name, _, value = arg[2:].partition("=")
            values[name] = "0" if arg[:2] == "-U" else "1"
            given[name] = "0" if arg[:2] == "-U" else (value or "1")
    if not values:
        return text
    names = "|".join(re.escape(n) for n in sorted(values, key=len, reverse=True))
    pattern = re.compile(r"\bdefined\s*(?:\(\s*(" + names + r")\s*\)|\s(" + names + r")\b)")
    # ... and the switch used as a value in a condition (`#if HAVE_GPU && !HAVE_ROCM`, Horovod)
    bare = re.compile(r"(?<![\w(])(" + names + r")\b(?!\s*\()")
    lines = text.split("\n")
    in_directive = in_condition = False
    for i, line in enumerate(lines):
        if not in_directive:
            in_condition = bool(re.match(r"\s*#\s*(?:el)?if\b", line))
        if in_directive or line.lstrip().startswith("#"):
            line = pattern.sub(lambda m: values[m.group(1) or m.group(2)], line)
            if in_condition:
                line = bare.sub(lambda m: given[m.group(1)], line)
            lines[i] = line
        in_directive = line.endswith("\\")
    return "\n".join(lines)


def _call_args(text: str, start: int) -> tuple[list[str], int] | None:
    """Top-level arguments of the call whose '(' is at start, and the index after its ')'."""
    depth, args, cur, i = 0, [], start + 1, start
    quote = ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[cur:i])
                return args, i + 1
        elif ch == "," and depth == 1:
            args.append(text[cur:i])
            cur = i + 1
        i += 1
    return None


def expand_arm_macros(text: str, macros: tuple[tuple[str, int, int], ...], view: str) -> str:
    """Replace each use of a macro that picks between a HIP and a CUDA argument by the argument
    the view compiles, keeping every line at its number (what the macro hides is an edit too)."""
    for name, cuda_arg, hip_arg in macros:
        pos = 0
        pattern = re.compile(r"\b" + re.escape(name) + r"\s*\(")
        while m := pattern.search(text, pos):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if text[line_start : m.start()].lstrip().startswith("#"):
                pos = m.end()
                continue
            parsed = _call_args(text, m.end() - 1)
            want = cuda_arg if view == "cuda" else hip_arg
            if parsed is None or len(parsed[0]) < want:
                pos = m.end()
                continue
            args, end = parsed
            chosen = re.sub(r"\\\n", " ", args[want - 1]).replace("\n", " ").strip()
            inside_define = text[m.start() : end].rstrip().endswith("\\") or "\\\n" in text[m.start() : end]
            pad = (" \\\n" if inside_define else "\n") * text.count("\n", m.start(), end)
            text = text[: m.start()] + chosen + pad + text[end:]
            pos = m.start() + len(chosen)
    return text


def prepare(cb: CodeBase, git_dir: Path, out: Path, view: str = "cuda") -> Path:
    """Make OUT/<name> the code base's CUDA original (view=cuda) or its ROCm view (view=hip)."""
    dest = out / cb.name
    if dest.exists():
        subprocess.run(["rm", "-rf", str(dest)], check=True)
    dest.mkdir(parents=True)
    args = cb.cuda if view == "cuda" else cb.hip
    for path in export(cb, git_dir, dest, view):
        if path.suffix in SOURCE_SUFFIXES or path.name.endswith(SOURCE_SUFFIXES):
            err = unifdef(path, args) if args else None
            if err:
                print(err, file=sys.stderr)
            if args:
                text = path.read_text(errors="surrogateescape")
                new = settle_defined(text, args)
                if new != text:
                    path.write_text(new, errors="surrogateescape")
            if cb.arm_macros:
                text = path.read_text(errors="surrogateescape")
                new = expand_arm_macros(text, cb.arm_macros, view)
                if new != text:
                    path.write_text(new, errors="surrogateescape")
    commit = cb.before if view == "cuda" and cb.before else cb.commit
    (dest / ".port-commit").write_text(f"{cb.repo} {commit} {view}\n")
    return dest


def parse_git_args(items: list[str]) -> dict[str, Path]:
    out = {}
    for item in items:
        name, _, path = item.partition("=")
        out[name] = Path(path)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, help="folder to hold one prepared folder per code base")
    ap.add_argument("--mirrors", type=Path, help="folder holding git copies (<owner>+<name>/repo or <name>)")
    ap.add_argument(
        "--git", action="append", default=[], metavar="NAME=GITDIR", help="git copy of one code base"
    )
    ap.add_argument("--view", choices=("cuda", "hip"), default="cuda")
    ap.add_argument("--only", help="comma-separated code base names")
    args = ap.parse_args()
    explicit = parse_git_args(args.git)
    only = set(args.only.split(",")) if args.only else None
    status = 0
    for cb in load_codebases():
        if only and cb.name not in only:
            continue
        git_dir = find_git(cb, args.mirrors, explicit, args.view)
        if git_dir is None:
            print(f"{cb.name}: no git copy of {cb.repo} found (give --git {cb.name}=PATH)", file=sys.stderr)
            status = 2
            continue
        try:
            dest = prepare(cb, git_dir, args.out, args.view)
        except RuntimeError as exc:
            print(exc, file=sys.stderr)
            status = 2
            continue
        commit = cb.before if args.view == "cuda" and cb.before else cb.commit
        print(f"{cb.name}: {cb.repo}@{commit[:12]} -> {dest} ({args.view})")
    return status


if __name__ == "__main__":
    sys.exit(main())
