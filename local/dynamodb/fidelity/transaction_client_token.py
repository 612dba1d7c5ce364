"""TransactWriteItems honours its ClientRequestToken.

moto: it ignores TransactWriteItems' `ClientRequestToken`, which botocore fills in once per call and sends again on
each of its retries. A retried transaction whose first attempt was applied (its answer lost on the way) runs again and
fails on its own conditions: a 409 locally where AWS answers 200.

DynamoDB: the DynamoDB API Reference, "TransactWriteItems", ClientRequestToken: "Providing a ClientRequestToken makes
the call to TransactWriteItems idempotent, meaning that multiple identical calls have the same effect as one single
call"; the token "is valid for 10 minutes after the first request that uses it is completed"; a request "with the
same client token but a change in other parameters within the 10-minute idempotency window" gets an
IdempotentParameterMismatch exception.

Correction: a successful transaction's answer is kept by token, on its account and region's backend (so a reset of
moto forgets it), for TOKEN_WINDOW_SECONDS, with a digest of every other parameter of the request. A repeat with the
same digest gets that answer without being applied again; one with another digest gets
IdempotentParameterMismatchException. A failed transaction is not kept: its retry runs.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import json
import threading
import time
from typing import Any

from local.dynamodb.fidelity._patching import Patches

TOKEN_WINDOW_SECONDS = 600  # "valid for 10 minutes after the first request that uses it is completed"

_patches = Patches()


def apply() -> None:
    if _patches.applied:
        return
    from moto.dynamodb.responses import DynamoHandler

    _patches.replace(DynamoHandler, "transact_write_items", _client_request_token(DynamoHandler.transact_write_items))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


def _client_request_token(transact_write_items: Any) -> Any:
    from moto.dynamodb.exceptions import ERROR_TYPE_PREFIX, DynamodbException

    lock = threading.Lock()

    @functools.wraps(transact_write_items)
    def patched(self: Any) -> Any:
        token = self.body.get("ClientRequestToken")
        if not token:
            return transact_write_items(self)
        key = str(token)
        # every parameter but the token: "a change in other parameters" is a mismatch too (binary values are bytes)
        rest = {name: value for name, value in self.body.items() if name != "ClientRequestToken"}
        digest = hashlib.sha256(json.dumps(rest, sort_keys=True, default=repr).encode()).hexdigest()
        now = time.monotonic()
        with lock:
            done: collections.OrderedDict[str, tuple[str, float, Any]] = vars(self.dynamodb_backend).setdefault(
                "_client_tokens", collections.OrderedDict())  # in completion order: the stale ones come first
            while done and now - next(iter(done.values()))[1] > TOKEN_WINDOW_SECONDS:
                done.popitem(last=False)
            seen = done.get(key)
        if seen is not None:
            if seen[0] != digest:
                raise DynamodbException(ERROR_TYPE_PREFIX + "IdempotentParameterMismatchException",
                                        "The request uses the same client token as a previous, but non-identical "
                                        "request.")
            return seen[2]
        result = transact_write_items(self)
        with lock:
            done[key] = (digest, time.monotonic(), result)
        return result

    return patched
