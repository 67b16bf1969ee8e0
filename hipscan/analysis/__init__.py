"""Values derived from a translation unit's facts that no single expression shows."""
