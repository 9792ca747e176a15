"""Feature extraction, pattern mining and the rating fit."""
