"""Lambda: the functions of the template and their pools of worker processes (`pool`), one execution environment
(`worker`, run as `python -m local.awslambda.worker`), and what a handler receives (`events`).

Import-free, like `local/__init__.py`: the worker imports this package before the function's own code, and must
stay as light as a Lambda runtime (and never import the repository's `functions` package: the staged asset's wins).
"""
