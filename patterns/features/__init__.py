"""Tactical features of candidate moves, one module a family; ``table`` names them."""

from .distance import distance_level
from .point import features_of, point_features, tactical_features, tactical_features_with, tracked_features
from .table import FEATURE_LEVELS, FEATURE_TABLE, FEATURES, N_FEATURES

__all__ = [
    "FEATURES",
    "FEATURE_LEVELS",
    "FEATURE_TABLE",
    "N_FEATURES",
    "distance_level",
    "features_of",
    "point_features",
    "tactical_features",
    "tactical_features_with",
    "tracked_features",
]
