"""The search tree in flat arrays: the nodes, the moves a node offers, the root kept between moves.

A room of the search; the rooms' reading order is in this package's ``__init__``.

A tree is ``t[MOVE | FIRST | NCHILD | KNOWN, node]`` (a node's children are
contiguous) and ``f[thread, field, node]`` (the fields in ``selection``); search
thread ``k`` takes new nodes from its share ``pool[k] = (next free node, end)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...go.board import Board
from ...go.rules import COLOR, EMPTY, KO, LAST, PASS, SIZE, STRIDE, illegal_reason, is_eye
from .selection import FIRST, MOVE, N_FIELDS, N_NODE_INTS, NCHILD, PVISITS, PWINS, VISITS, WINS


class Nodes(NamedTuple):
    """A tree's arrays as the kernels take them."""

    t: np.ndarray  # int64[N_NODE_INTS, nodes]: move, first child, number of children, KNOWN
    f: np.ndarray  # float64[threads, N_FIELDS, nodes]: each search thread's statistics
    pool: np.ndarray  # int64[threads, 2]: each thread's next free node and the end of its share


@njit(cache=True)
def node_moves(b: np.ndarray, m: np.ndarray, color: int, allowed: np.ndarray) -> np.ndarray:
    """The moves a node offers: ``color``'s legal moves on ``allowed`` points that fill
    no own eye (a pass is never a child)."""
    size = m[SIZE]
    w = m[STRIDE]
    moves = np.empty(size * size, dtype=np.int64)
    k = 0
    for row in range(1, size + 1):
        for p in range(row * w + 1, row * w + size + 1):
            if b[COLOR, p] != EMPTY or not allowed[p] or is_eye(b, m, color, p):
                continue
            if illegal_reason(b, m, color, p) == 0:
                moves[k] = p
                k += 1
    return moves[:k]



class Tree:
    """One search tree in flat arrays, with its root kept between moves (tree reuse).
    ``threads`` search threads share it: each has its own statistics slice of ``f``
    and its own share of the nodes (``pool[k] = (next free node, end)``)."""

    def __init__(self, max_nodes: int, threads: int = 1) -> None:
        self.max_nodes = max_nodes
        self.t = np.zeros((N_NODE_INTS, max_nodes), dtype=np.int64)
        self.f = np.zeros((threads, N_FIELDS, max_nodes))
        span = (max_nodes - 1) // threads
        self.bounds = np.array([(1 + k * span, 1 + (k + 1) * span) for k in range(threads)], dtype=np.int64)
        self.pool = self.bounds.copy()
        self.root = 0
        self.root_key: tuple[int, int, int] | None = None  # (stones hash, ko point, colour to move)

    @property
    def nodes(self) -> Nodes:
        """The arrays as the kernels take them."""
        return Nodes(self.t, self.f, self.pool)

    def find_root(self, board: Board, color: int, allowed: np.ndarray) -> None:
        """Reuse the subtree of the current position if the tree holds it and the
        node offers exactly the moves legal now (``allowed``: the superko mask; nodes
        below the root were expanded without it), else start over."""
        key = (board.zobrist, int(board.m[KO]), color)  # what the legal moves depend on
        node = self.root if key == self.root_key else -1  # the same position again (analysis)
        half_full = np.any(self.pool[:, 0] - self.bounds[:, 0] >= (self.bounds[:, 1] - self.bounds[:, 0]) // 2)
        if node < 0 and self.root_key is not None and not half_full:
            node = self._descend(board, color)
        if node >= 0 and self._offers_legal_moves(node, board, color, allowed):
            self.root, self.root_key = node, key
            return
        self.t[MOVE, 0], self.t[FIRST, 0], self.t[NCHILD, 0] = PASS, -1, 0
        self.f[:, :, 0] = 0.0
        self.pool[:, 0] = self.bounds[:, 0]
        self.root, self.root_key = 0, key

    def _descend(self, board: Board, color: int) -> int:
        """The node of the board's position: a child or grandchild of the old root
        reached by the moves played since, each by the colour the tree has move, or -1."""
        history = [board]
        probe = board.copy()
        for _ in range(2):
            if not probe.moves_played:
                break
            probe.undo()
            history.append(probe.copy())
        for back, old in enumerate(history[1:], start=1):
            if (old.zobrist, int(old.m[KO]), color if back % 2 == 0 else 3 - color) != self.root_key:
                continue
            node, mover = self.root, self.root_key[2]
            for newer in reversed(history[:back]):
                move = int(newer.m[LAST])
                if move != PASS and newer.b[COLOR, move] != mover:
                    return -1
                node, mover = self._child(node, move), 3 - mover
                if node < 0:
                    return -1
            return node
        return -1

    def _offers_legal_moves(self, node: int, board: Board, color: int, allowed: np.ndarray) -> bool:
        """Whether ``node``'s children (none yet counts) are the moves ``color`` may play now."""
        kids = self.children(node)
        legal = node_moves(board.b, board.m, color, allowed)
        return not len(kids) or np.array_equal(np.sort(self.t[MOVE, kids]), legal)

    def children(self, node: int) -> np.ndarray:
        """The node indices of ``node``'s children (empty for a leaf)."""
        first, k = int(self.t[FIRST, node]), int(self.t[NCHILD, node])
        return np.arange(first, first + k) if first >= 0 else np.zeros(0, dtype=np.int64)

    def _child(self, node: int, move: int) -> int:
        kids = self.children(node)
        hits = kids[self.t[MOVE, kids] == move]
        return int(hits[0]) if len(hits) else -1


    def settled(self, remaining: float) -> bool:
        """Whether the root's most visited move leads the next by more than the
        ``remaining`` playouts of each thread growing this tree could make up."""
        kids = self.children(self.root)
        if len(kids) < 2:
            return True
        visits = self.f[:, VISITS, kids].sum(axis=0)
        second, first = np.partition(visits, -2)[-2:]
        return first - second > remaining * self.f.shape[0]

    def root_stats(self, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per board point: real visits, real wins and prior value of the root's children.
        Read while the search runs (analysis), the wins are read first: a simulation adds
        its visit before its win, so the wins read never pass the visits read after them."""
        visits, wins, prior_value = np.zeros(w * w), np.zeros(w * w), np.zeros(w * w)
        kids = self.children(self.root)
        if len(kids):
            moves = self.t[MOVE, kids]
            wins[moves] = self.f[:, WINS, kids].sum(axis=0)
            visits[moves] = self.f[:, VISITS, kids].sum(axis=0)
            prior_value[moves] = self.f[0, PWINS, kids] / self.f[0, PVISITS, kids]
        return visits, wins, prior_value

    def principal_variation(self, node: int, length: int) -> tuple[list[int], list[int]]:
        """The moves from ``node`` down by the most visited child, ``node``'s own first,
        and the visits of each node on the way."""
        pv, along = [int(self.t[MOVE, node])], [int(self.f[:, VISITS, node].sum())]
        while len(pv) < length:
            kids = self.children(node)
            if not len(kids):
                break
            visits = self.f[:, VISITS, kids].sum(axis=0)
            if visits.max() <= 0:
                break
            node = int(kids[np.argmax(visits)])
            pv.append(int(self.t[MOVE, node]))
            along.append(int(visits.max()))
        return pv, along
