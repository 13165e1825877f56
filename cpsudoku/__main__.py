"""``python -m cpsudoku``: the same as the ``cpsudoku`` console script."""

from cpsudoku.cli import entrypoint

if __name__ == "__main__":
    entrypoint()
