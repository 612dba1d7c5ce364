(  # the package's docstring, as one line: the explorer shows it
    "Patterns: The Book's patterns: reference counts, sequential ids, assembled collections, sparse and "
    "changing-attribute indexes, hierarchy, enum sort keys."
)
