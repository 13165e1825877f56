"""Pure encoders: Puzzle/rules -> CNF clauses or a CP-SAT model. No solving here."""
