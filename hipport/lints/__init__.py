"""Lints above the parsers: what a structural lint hit becomes (findings.py), and the lints that
read a file's functions whole (vector_operator.py, own_overload.py). The engine runs them; the
matchers the tree-sitter walk runs are hipport.parse.treesitter.lints, the rules' data hipport.ruleset."""
