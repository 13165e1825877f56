"""Datasets: reading records, solving them in bulk, writing rows, on one machine or many.

``batch`` is the entry point (``cpsudoku batch``, :func:`cpsudoku.solve_many`); the
modules below it read records, encode rows, run the numpy logic pass, keep worker
processes busy, write and resume outputs, and run the same on a Dask cluster.
"""
