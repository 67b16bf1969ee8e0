"""Text from a scanned tree shown on a terminal or in a log: control characters escaped.

A file name may hold a newline or an escape sequence; printed raw it would split a
compiler-style line in two or drive the terminal.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_controls(text: str) -> str:
    """``text`` with every C0/C1 control character written as an escape (``\\n``, ``\\x1b``)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: _NAMED.get(m.group(0), f"\\x{ord(m.group(0)):02x}"), text)
