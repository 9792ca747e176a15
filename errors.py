"""The project's error: raised by every stage with a one-line message for the user."""


class ShapemillError(Exception):
    """Bad input, a bad table or an output that cannot be written: the message names
    the file and the reason in one line; ``shapemill`` prints it and exits 1."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises ``KeyboardInterrupt`` (``cli`` installs the
    handler), so that a command ends alike on either: temporary files removed, previous
    outputs intact, one line."""


class UsageError(ShapemillError):
    """Options that cannot work together or with their input (a region off the board,
    a reversed range, a date that is not one), found before any work: ``shapemill``
    prints the one line and exits 2, as click does for its own option errors."""
