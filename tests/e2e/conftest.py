"""The local runtime, started once for the e2e tests: synth, moto, workers, HTTP. Tests are its clients.

Package-scoped, so it stops when the e2e tests are done: left running, its stream pollers would keep reading a moto
that later suites reset (mock_aws) and fill their captured logs with errors.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from infra.stack import StageConfig
from local.apigateway.restapi import Throttle
from local.cognito import mint_token
from local.runtime import Runtime

ROOT = Path(__file__).resolve().parents[2]
# The origin the e2e runtime allows; the browser resolves it to a loopback server (--host-resolver-rules).
CORS_TEST_ORIGIN = "http://cors-allowed.test"


class Api:
    def __init__(self, url: str, keys_dir: Path):
        self.url = url
        self.keys_dir = keys_dir
        self.session = requests.Session()

    def token(self, user: str = "alice", groups: tuple[str, ...] = (), ttl: int = 3600) -> str:
        return mint_token(user, groups, ttl, keys_dir=self.keys_dir)

    def call(self, method: str, path: str, *, user: str | None = "alice", groups: tuple[str, ...] = (),
             token: str | None = None, **kwargs) -> requests.Response:
        headers = kwargs.pop("headers", {})
        if token is None and user is not None:
            token = self.token(user, groups)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return self.session.request(method, self.url + path, headers=headers, timeout=30, **kwargs)


@pytest.fixture(scope="package")
def runtime(tmp_path_factory) -> Iterator[Runtime]:
    os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
    keys_dir = tmp_path_factory.mktemp("keys")
    # The dev stage allows 50 requests/s, burst 100 (the template's, enforced locally). The 200 concurrent voters of
    # test_voting.py stay under that on a slow machine but can exceed it on a fast one, as they would on AWS dev:
    # the suite runs under the prod stage's limits instead, explicitly.
    # Synthesized with one allowed CORS origin (`-c corsOrigins=…`), a name no page outside the tests has: the browser
    # test serves a page under it (test_explorer.py, test_a_page_on_an_allowed_origin_…).
    prod = StageConfig.named("prod")
    rt = Runtime.start(ROOT, stage="dev", port=0, aws_port=0, keys_dir=keys_dir, max_concurrency=2,
                       throttle=Throttle(rate=prod.throttling_rate_limit, burst=prod.throttling_burst_limit),
                       context={"corsOrigins": CORS_TEST_ORIGIN})
    rt.keys_dir = keys_dir
    try:
        yield rt
    finally:
        rt.stop()


@pytest.fixture(scope="package")
def api(runtime) -> Api:
    return Api(runtime.url, runtime.keys_dir)


FUZZ_TESTS = "test_fuzz.py"


def pytest_collection_modifyitems(config, items) -> None:
    """The fuzzer runs after the other e2e tests (it deletes what it likes), still inside this package so that the
    shared runtime starts once."""
    e2e = [i for i, item in enumerate(items) if item.path.parent == Path(__file__).parent]
    if not e2e:
        return
    block = [items[i] for i in e2e]
    block.sort(key=lambda item: item.path.name == FUZZ_TESTS)
    for position, item in zip(e2e, block):
        items[position] = item
