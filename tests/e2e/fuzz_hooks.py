"""Schemathesis hooks for tests/e2e/test_fuzz.py (loaded by schemathesis.toml, in the fuzzer's process).

A list cursor is valid only if this API signed it for this list and these parameters (functions/shared/pagination.py):
the description states its shape (`CURSOR_PATTERN`), no schema can state its signature. A random well-shaped cursor
is therefore schema-valid and still refused (400 INVALID_CURSOR, documented), which the positive-data check would
call a valid input rejected. So a *positive* case does not carry a made-up cursor: the request goes without it (the
first page, as valid as any). Negative cases keep theirs (a cursor off the pattern must be a 400 VALIDATION_FAILED);
forged and foreign well-shaped cursors are tested by the functional and e2e suites (INVALID_CURSOR).
"""

from __future__ import annotations

import schemathesis

CURSOR = "cursor"


@schemathesis.hook
def before_call(context, case, kwargs):
    mode = case.meta.generation.mode if case.meta is not None else None
    if mode is not None and mode.is_positive and case.query and CURSOR in case.query:
        case.query = {name: value for name, value in case.query.items() if name != CURSOR}
