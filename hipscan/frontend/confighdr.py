"""Stand-ins for the config headers a build generates from templates.

CMake's ``configure_file(magma_config.h.in magma_config.h)``, autoheader's ``config.h.in`` and
meson's ``config.h.meson`` write a header at build time; a source tree holds only the template.
Without the header every file that includes it parses with errors, and the code behind them
(declarations, then whole function bodies) is lost to the scan. The stand-in is the template
rendered the way a build with every option off would render it: ``#cmakedefine X`` and
autoheader's ``#undef X`` become comments (so a switch given with -D, or one hipscan turns on,
stays as given), ``#cmakedefine01 X`` is 0 and ``@VAR@`` / ``${VAR}`` values are 0.
"""

from __future__ import annotations

import re
from pathlib import Path

# `<header>.in`, `.cmake`, `.cmake.in`, `.cmakein`, `.meson`: the name the build writes it under
TEMPLATE = re.compile(r"^(?P<name>.+\.(?:h|hh|hpp|hxx|cuh|inc|H))\.(?:in|cmake|cmake\.in|cmakein|meson)$")
MAX_TEMPLATES = 64  # stand-ins handed to every parse
MAX_TEMPLATE_BYTES = 256_000

_CMAKEDEFINE01 = re.compile(r"^([ \t]*)#([ \t]*)cmakedefine01[ \t]+(\w+).*$", re.M)
_OFF = re.compile(r"^([ \t]*)#[ \t]*(?:cmakedefine|mesondefine|undef)[ \t]+(\w+).*$", re.M)
_VALUE = re.compile(r"@[A-Za-z_][A-Za-z0-9_]*@|\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def generated_path(template: Path) -> Path | None:
    """The header a template is rendered to (beside it), or None for any other file."""
    m = TEMPLATE.match(template.name)
    return template.with_name(m.group("name")) if m else None


def render(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    text = _CMAKEDEFINE01.sub(lambda m: f"{m.group(1)}#{m.group(2)}define {m.group(3)} 0", text)
    text = _OFF.sub(lambda m: f"{m.group(1)}/* #undef {m.group(2)} */", text)
    return _VALUE.sub("0", text)
