"""The local endpoint serves one DynamoDB request at a time (moto alone would let transactions interleave)."""

from __future__ import annotations

import threading
import time

from local.aws import SerializedDynamoDB


class SlowApp:
    """A WSGI app that records how many requests it serves at once."""

    def __init__(self) -> None:
        self.active = 0
        self.most = 0
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        with self._lock:
            self.active += 1
            self.most = max(self.most, self.active)
        time.sleep(0.02)  # a slow request, during which another one would overlap (not a wait for anything)
        with self._lock:
            self.active -= 1
        start_response("200 OK", [])
        return [b"ok"]


def _serve(app, target: str, n: int = 6) -> list:
    bodies: list = []
    threads = [
        threading.Thread(target=lambda: bodies.append(app({"HTTP_X_AMZ_TARGET": target}, lambda *a: None)))
        for _ in range(n)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return bodies


def test_dynamodb_and_streams_requests_never_overlap():
    for target in ("DynamoDB_20120810.TransactWriteItems", "DynamoDBStreams_20120810.GetRecords"):
        inner = SlowApp()
        bodies = _serve(SerializedDynamoDB(inner), target)
        assert inner.most == 1
        assert bodies == [[b"ok"]] * 6


def test_other_services_stay_concurrent():
    inner = SlowApp()
    _serve(SerializedDynamoDB(inner), "AmazonSQS.ReceiveMessage")
    assert inner.most > 1
