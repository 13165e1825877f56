"""Pure encoders: Puzzle/geometry -> CNF clauses or a CP-SAT model. No solving here."""
