"""Values derived from a translation unit's facts that no single expression shows (the stage
between facts and rules): each module adds facts of its own kind for the rules to match."""
