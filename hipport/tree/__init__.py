"""convert on a directory: selection, cache, process pool, safety checks, renames, writing."""
