"""What the bench sections share: the repository root, the process environment of a bench run, and the local runtime
a section that serves HTTP starts. The sections import this module; nothing here imports a section, and the entry
points (`python -m bench`, `python -m bench.cost`) call `configure()` before the first section runs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from local.apigateway.restapi import Throttle
    from local.runtime import Runtime

ROOT = Path(__file__).resolve().parents[1]
BENCH_KEYS = ROOT / ".local" / "bench-keys"  # the signing keys of the benches' runtimes (tokens via mint_token)

# Fake credentials and region for moto (never an AWS account); account-based endpoints off (AWS SDKs and Tools
# Reference Guide, "Account-based endpoints"), because moto serves DynamoDB Streams only on the regional endpoint.
ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled", "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
}


def configure() -> None:
    """The environment every section assumes (moto's fake credentials and region), set once by an entry point."""
    os.environ.update(ENVIRONMENT)


def bench_runtime(max_concurrency: int) -> Runtime:
    """The local runtime a bench section starts (a context manager): stage dev under the prod stage's limits
    (`prod_throttle`), its functions' logs dropped, its signing keys in BENCH_KEYS."""
    from local.runtime import Runtime

    return Runtime.start(ROOT, stage="dev", port=0, aws_port=0, keys_dir=BENCH_KEYS, max_concurrency=max_concurrency,
                         log_sink=lambda *a, **k: None, throttle=prod_throttle())


def prod_throttle() -> Throttle:
    """The prod stage's throttling (from infra.stack), instead of dev's 50 requests/s, burst 100 that the local
    runtime enforces from the template: these workloads exceed dev's limits, as they would on AWS. A 429 here
    means the prod stage would throttle them too."""
    from infra.stack import StageConfig
    from local.apigateway.restapi import Throttle

    prod = StageConfig.named("prod")
    return Throttle(rate=prod.throttling_rate_limit, burst=prod.throttling_burst_limit)
