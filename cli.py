"""The ``shapemill`` command line: one click group, a command per stage.

Each command imports its stage lazily so that ``shapemill --help`` and
``shapemill gtp`` start fast.
"""

from __future__ import annotations

import click

from shapemill import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="shapemill")
def main() -> None:
    """Mine rated shape patterns from Go game archives, and play with them."""


if __name__ == "__main__":
    main()
