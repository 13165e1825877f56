"""The version of cpsudoku (also in pyproject.toml)."""

__version__ = "0.1.0"
