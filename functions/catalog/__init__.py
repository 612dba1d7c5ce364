"""Catalog: Product catalog as hierarchical items and as JSON documents (seed 002)."""
