"""Writes the small synthetic game records in tests/fixtures/games/ (run from the repo root).

Random legal 19x19 games (seeded, never filling an own eye) with the headers real
archives have: names in UTF-8 and in EUC-KR without CA, Fox's KM[650], ranks like
P9段, a collection of several games in one file, and a zip archive.
"""

import random
import zipfile
from pathlib import Path

from shapemill.go import Board

OUT = Path(__file__).parent / "fixtures" / "games"
LETTERS = "abcdefghijklmnopqrs"


def random_game(seed: int, size: int = 19, moves: int = 80) -> str:
    rng = random.Random(seed)
    board = Board(size)
    nodes = []
    for n in range(moves):
        color = "bw"[n % 2]
        points = [(r, c) for r in range(size) for c in range(size) if board.is_legal(color, (r, c))]
        rng.shuffle(points)
        for point in points:
            board.play(color, point)
            row, col = point
            nodes.append(f";{color.upper()}[{LETTERS[col]}{LETTERS[size - 1 - row]}]")
            break
    return "".join(nodes)


def header(pb: str, pw: str, extra: str = "") -> str:
    return f"GM[1]FF[4]SZ[19]PB[{pb}]PW[{pw}]{extra}"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "utf8.sgf").write_text(
        f"(;{header('김철수', '李昌镐', 'CA[UTF-8]KM[7.5]BR[9단]WR[P9段]RE[B+R]')}{random_game(1)})", encoding="utf-8"
    )
    (OUT / "euc-kr no CA.SGF").write_bytes(
        f"(;{header('이세돌', '박정환', 'KM[650]BR[9d]WR[9d]RE[W+3.5]')}{random_game(2)})".encode("euc-kr")
    )
    (OUT / "collection.sgf").write_text(
        "".join(f"(;{header(f'p{i}', f'q{i}', 'KM[7]RE[B+R]')}{random_game(10 + i)})" for i in range(3))
    )
    with zipfile.ZipFile(OUT / "archive.zip", "w") as zf:
        for i in range(4):
            zf.writestr(f"month/{i}.sgf", f"(;{header(f'z{i}', 'w', 'KM[6.5]')}{random_game(20 + i)})")
        zf.writestr("month/broken.sgf", "(;GM[1]SZ[19];B[ee];W[ee])")


if __name__ == "__main__":
    main()
