"""`make scale`: every model's partition load at the rates its seed quotes (bench/scale/model.py: the rules;
bench/scale/workloads.py: the workloads; bench/scale/__main__.py: the table, .artifacts/scale.json and
functions/platform/scale-figures.json, which the docs render and the explorer shows)."""
