"""The rule engine: TOML rule files matched against front-end facts, yielding findings.

Knowledge lives in the rule files (top-level ``rules/``) and the CUDA→HIP API table; this
package only knows how to read, validate, match and document them.
"""

from hipscan.rules.engine import RuleOptions, RuleSet, load_rules
from hipscan.rules.rule import Rule
from hipscan.rules.schema import CATEGORIES, RuleFileError

__all__ = ["CATEGORIES", "Rule", "RuleFileError", "RuleOptions", "RuleSet", "load_rules"]
