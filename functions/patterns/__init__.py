"""Patterns: The Book's patterns: reference counts, sequential ids, assembled collections, sparse and changing-attribute indexes, hierarchy, enum sort keys."""
