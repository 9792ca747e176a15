"""The engine: priors from a ratings table, playout policies, MCTS, GTP, match, play, demo."""
