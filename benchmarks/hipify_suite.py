"""Run HIPIFY's own unit tests against ``hipscan translate`` (and hipify-perl) and print pass counts.

    python3 benchmarks/hipify_suite.py PATH_TO_HIPIFY_CHECKOUT [--hipify-perl PATH]
        [--filecheck PATH] [--cuda-version 12.6] [--cli] [--no-scan] [--only SUBSTRING] [-v]

A HIPIFY test is a CUDA file whose ``// RUN:`` line names the translator's options and whose
``// CHECK:`` lines say what the translation must contain. As ``tests/run_test.sh`` does, each
file is translated, every ``//`` comment of the output is blanked (``sed -Ee 's|//.+|// |g'``)
and LLVM's FileCheck matches the result against the input's CHECK lines. The tests run are the
ones ``tests/lit.cfg`` keeps for the given CUDA version without cuDNN or CUB (its own excludes,
evaluated by running lit.cfg itself).

RUN-line options are passed through: ``-roc``/``--roc`` -> ``--roc``,
``--hip-kernel-execution-syntax`` -> ``--launch-syntax hip``, ``-D``/``-I``/``-U`` after
``%clang_args`` -> the same scan options; hipify-perl gets the options it knows. hipscan runs
in this process through its command line (``hipscan translate FILE -o DIR``, click's entry
point called once per file); ``--cli`` starts ``python3 -m hipscan translate`` per file instead
(what a hook pays).

A second count applies the header-path normalisation docs/translate.md documents: hipscan
writes ROCm libraries' headers as ``<hipblas/hipblas.h>`` (the layout ROCm installs and
deprecates the flat name for), HIPIFY's tests expect the flat ``hipblas.h``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FILECHECK = "/usr/lib/llvm-14/bin/FileCheck"
# the libraries whose main header HIPIFY's include map (src/CUDA2HIP.cpp) writes without its
# folder; hipRAND, rocRAND, hipFFT and rocSOLVER keep theirs there too
LIBRARY_DIRS = "hipblas|rocblas|hipblaslt|hipsparse|rocsparse|hipsolver"
HEADER_DIR = re.compile(rf"(#\s*include\s*[<\"])(?:{LIBRARY_DIRS})/((?:{LIBRARY_DIRS})\.h[>\"])")
COMMENT = re.compile(rb"//.+")


@dataclass
class UnitTest:
    path: Path
    options: list[str]  # the hipify options of the RUN line
    clang_args: list[str]  # what follows %clang_args


@dataclass
class Outcome:
    passed: bool = False
    passed_normalised: bool = False
    mismatch: str = ""
    seconds: float = 0.0


@dataclass
class Tally:
    name: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)

    def count(self, normalised: bool = False) -> int:
        return sum(o.passed_normalised if normalised else o.passed for o in self.outcomes.values())


def selected_tests(hipify: Path, cuda_version: tuple[int, int]) -> list[Path]:
    """The tests lit.cfg keeps for this CUDA version (no cuDNN, no CUB), by running lit.cfg."""
    tests = hipify / "tests"
    lit = types.ModuleType("lit")
    lit.formats = types.SimpleNamespace(ShTest=lambda *a, **k: None)
    lit.util = types.ModuleType("lit.util")
    saved = {k: sys.modules.get(k) for k in ("lit", "lit.formats", "lit.util")}
    sys.modules.update({"lit": lit, "lit.formats": lit.formats, "lit.util": lit.util})
    config = types.SimpleNamespace(
        cuda_version_full=f"{cuda_version[0]}.{cuda_version[1]}",
        cuda_version_major=cuda_version[0],
        cuda_version_minor=cuda_version[1],
        llvm_version="18.1",
        llvm_version_major=18,
        pointer_size=8,
        cuda_dnn_root="OFF",
        cuda_cub_root="OFF",
        cuda_sdk_root="OFF",
        cuda_root="OFF",
        cudnn_version_major=0,
        environment={"PATH": ""},
        substitutions=[],
        obj_root=str(tests),
        llvm_tools_dir=str(tests),
        hipify_clang_tests_only="OFF",
        hipify_install_path="",
        clang_resource_dir="",
    )
    lit_config = types.SimpleNamespace(params={}, load_config=lambda c, s: None, fatal=print)
    try:
        code = compile((tests / "lit.cfg").read_text(), str(tests / "lit.cfg"), "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(
                code,
                {"config": config, "lit_config": lit_config, "sys": sys, "__file__": str(tests / "lit.cfg")},
            )
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    found = [
        p
        for p in sorted((tests / "unit_tests").rglob("*"))
        if p.is_file() and p.suffix in config.suffixes and p.name not in config.excludes
    ]
    return found


def parse_run(path: Path) -> UnitTest | None:
    """The options of the file's ``// RUN: %run_test hipify ... N opts %clang_args extra`` line."""
    for line in path.read_text("utf-8", "replace").splitlines():
        if not line.startswith("// RUN:"):
            continue
        words = shlex.split(line[len("// RUN:") :])
        if "%hipify_args" not in words:
            return UnitTest(path, [], [])
        rest = words[words.index("%hipify_args") + 1 :]
        count = int(rest[0]) if rest and rest[0].isdigit() else 0
        options = rest[1 : 1 + count]
        clang = rest[1 + count :]
        if clang and clang[0] == "%clang_args":
            clang = clang[1:]
        return UnitTest(path, options, clang)
    return None


def hipscan_args(test: UnitTest) -> list[str]:
    """hipscan translate options for a RUN line's hipify options and clang arguments."""
    args: list[str] = []
    for opt in test.options:
        if opt in ("-roc", "--roc"):
            args.append("--roc")
        elif opt == "--hip-kernel-execution-syntax":
            args += ["--launch-syntax", "hip"]
    clang = iter(test.clang_args)
    for word in clang:
        for flag in ("-D", "-I", "-U"):
            if word == flag:
                args += [flag, next(clang, "")]
            elif word.startswith(flag):
                args += [flag, word[2:]]
    return args


PERL_OPTIONS = {
    "-roc": "-roc",
    "--roc": "-roc",
    "--hip-kernel-execution-syntax": "-hip-kernel-execution-syntax",
    "--cuda-kernel-execution-syntax": "-cuda-kernel-execution-syntax",
    "--experimental": "-experimental",
}


def filecheck(filecheck_bin: str, test: Path, output: bytes) -> tuple[bool, str]:
    """Blank ``//`` comments as run_test.sh does and match the CHECK lines; first mismatch."""
    blanked = COMMENT.sub(b"// ", output)
    proc = subprocess.run(
        [filecheck_bin, str(test)], input=blanked, capture_output=True, check=False, timeout=120
    )
    if proc.returncode == 0:
        return True, ""
    lines = proc.stderr.decode("utf-8", "replace").splitlines()
    for k, line in enumerate(lines):
        if "error:" in line:
            detail = lines[k + 1].strip() if k + 1 < len(lines) else ""
            near = next((ln.strip() for ln in lines[k + 2 :] if "note: scanning from here" in ln), "")
            got = ""
            if near:
                idx = lines.index(next(ln for ln in lines[k + 2 :] if "note: scanning from here" in ln))
                got = lines[idx + 1].strip() if idx + 1 < len(lines) else ""
            where = line.split("error:")[0].rsplit("/", 1)[-1].rstrip(": ")
            return False, f"{where}: {detail}" + (f"  | output near: {got}" if got else "")
    return False, (lines[0] if lines else f"FileCheck exit {proc.returncode}")


def normalise(output: bytes) -> bytes:
    return HEADER_DIR.sub(r"\1\2", output.decode("utf-8", "replace")).encode("utf-8")


def run_hipscan_inprocess(test: UnitTest, outdir: Path, extra: list[str]) -> bytes:
    from hipscan.cli import main

    argv = ["translate", str(test.path), "-o", str(outdir), *hipscan_args(test), *extra]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main.main(argv, prog_name="hipscan", standalone_mode=False)
        except SystemExit:
            pass
        except Exception as exc:  # a crash is a failed test, with its reason
            return f"hipscan crashed: {exc!r}".encode()
    return _read_output(test, outdir)


def run_hipscan_cli(test: UnitTest, outdir: Path, extra: list[str]) -> bytes:
    argv = [sys.executable, "-m", "hipscan", "translate", str(test.path), "-o", str(outdir)]
    subprocess.run(argv + hipscan_args(test) + extra, cwd=REPO, capture_output=True, check=False, timeout=300)
    return _read_output(test, outdir)


def _read_output(test: UnitTest, outdir: Path) -> bytes:
    name = test.path.name
    candidates = [outdir / (name[: -len(".cu")] + ".hip") if name.endswith(".cu") else outdir / name]
    for c in candidates:
        if c.is_file():
            return c.read_bytes()
    return b""


def run_perl(perl_script: str, test: UnitTest, outdir: Path) -> bytes:
    out = outdir / (test.path.name + ".hip")
    opts = [PERL_OPTIONS[o] for o in test.options if o in PERL_OPTIONS]
    cmd = ["perl", perl_script, *opts, "-quiet-warnings", f"-o={out}", str(test.path)]
    subprocess.run(cmd, capture_output=True, check=False, timeout=300)
    return out.read_bytes() if out.is_file() else b""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hipify", type=Path, help="a checkout of github.com/ROCm/HIPIFY")
    parser.add_argument("--hipify-perl", default=None, help="run this hipify-perl too (bin/hipify-perl)")
    parser.add_argument("--filecheck", default=shutil.which("FileCheck") or FILECHECK)
    parser.add_argument("--cuda-version", default="12.6", help="CUDA version lit.cfg selects tests for")
    parser.add_argument("--cli", action="store_true", help="one `python3 -m hipscan` process per file")
    parser.add_argument("--no-scan", action="store_true", help="translate with --no-scan")
    parser.add_argument("--only", default="", help="only tests whose path contains this")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every failure of every tool")
    ns = parser.parse_args()
    if not Path(ns.filecheck).is_file():
        sys.exit(f"hipify_suite: FileCheck not found at {ns.filecheck} (pass --filecheck)")
    sys.path.insert(0, str(REPO))
    major, minor = (int(x) for x in ns.cuda_version.split(".")[:2])
    paths = [p for p in selected_tests(ns.hipify, (major, minor)) if ns.only in str(p)]
    tests = [t for t in (parse_run(p) for p in paths) if t is not None]
    extra = ["--no-scan"] if ns.no_scan else []
    runner = run_hipscan_cli if ns.cli else run_hipscan_inprocess
    tools = [Tally("hipscan")] + ([Tally("hipify-perl")] if ns.hipify_perl else [])
    rel = {t.path: t.path.relative_to(ns.hipify / "tests" / "unit_tests").as_posix() for t in tests}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hipify-suite-") as tmp:
        for k, test in enumerate(tests):
            for tally in tools:
                outdir = Path(tmp) / tally.name / str(k)
                outdir.mkdir(parents=True)
                t0 = time.perf_counter()
                if tally.name == "hipscan":
                    output = runner(test, outdir, extra)
                else:
                    output = run_perl(ns.hipify_perl, test, outdir)
                seconds = time.perf_counter() - t0
                ok, why = filecheck(ns.filecheck, test.path, output)
                ok_n, why_n = (True, "") if ok else filecheck(ns.filecheck, test.path, normalise(output))
                if not ok_n and why_n != why:
                    why += f"\n      normalised: {why_n}"
                tally.outcomes[rel[test.path]] = Outcome(ok, ok_n, why, seconds)
    elapsed = time.perf_counter() - started
    print(f"HIPIFY tests selected by lit.cfg for CUDA {ns.cuda_version} (no cuDNN, no CUB): {len(tests)}")
    print()
    print(f"{'test':<60}" + "".join(f"{t.name:>13}" for t in tools))
    for name in (rel[t.path] for t in tests):
        cells = []
        for tally in tools:
            o = tally.outcomes[name]
            cells.append("pass" if o.passed else ("pass(norm)" if o.passed_normalised else "FAIL"))
        print(f"{name:<60}" + "".join(f"{c:>13}" for c in cells))
    print()
    for tally in tools:
        failures = [(n, o) for n, o in tally.outcomes.items() if not o.passed]
        if tally.name != "hipscan" and not ns.verbose:
            continue
        print(f"{tally.name}: first mismatch of each failure")
        for name, o in failures:
            print(f"  {name}: {o.mismatch}")
        print()
    mode = "one process per file (python3 -m hipscan)" if ns.cli else "in one process"
    print(f"{'tool':<14}{'pass':>6}{'pass, normalised headers':>28}{'s/file':>9}")
    for tally in tools:
        per = sum(o.seconds for o in tally.outcomes.values()) / max(1, len(tally.outcomes))
        print(f"{tally.name:<14}{tally.count():>6}{tally.count(True):>28}{per:>9.2f}")
    print(f"of {len(tests)} tests; hipscan ran {mode}; wall {elapsed:.0f} s")


if __name__ == "__main__":
    os.environ.setdefault("HIPSCAN_NO_PROGRESS", "1")
    main()
