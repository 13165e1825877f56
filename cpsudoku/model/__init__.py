"""The puzzle model: rules, puzzles, their text forms, the verifier, results, errors.

The bottom layer: it imports nothing else of cpsudoku, and everything else imports it.
"""
