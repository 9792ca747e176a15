"""Feature extraction, pattern mining and the rating fit."""


def __getattr__(name: str):
    """``Knowledge`` (a ratings table asked about positions), imported when first asked for."""
    if name == "Knowledge":
        from ..patterns.knowledge import Knowledge

        return Knowledge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
