"""The structural lint matchers the tree-sitter walk runs at each scanner candidate (match.py
is their entry point); what a hit becomes is hipport.lints."""
