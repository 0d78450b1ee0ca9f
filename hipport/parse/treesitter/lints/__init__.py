"""The tree-sitter backend's side of the structural lints: match.py runs the matchers of
hipport.lints.registry at each scanner candidate, context.py is what they read around it."""
