"""Cart: Shopping carts with TTL, SKU price-change notifications through an inverted index, abandoned-cart counts."""
