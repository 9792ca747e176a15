"""The move model, below both the miner (which mines and rates it) and the engine (which
plays with it): the tactical features (``features/``), the candidates of a position and
their teams (``candidates``), a ratings table's move strengths (``prior``), ``Knowledge``
(a table asked about positions), pattern diagrams (``show``) and the bundled tables
(``defaults``)."""
