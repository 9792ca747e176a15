"""Exact search on shapemill's rules: alpha-beta, proof-number search, df-pn and
unbounded best-first minimax over one small game interface (``game``)."""
