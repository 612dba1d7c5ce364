import functools
import os
from pathlib import Path

import botocore.session
import pytest

# Every test runs against fakes: no call may reach AWS, whatever the developer's shell holds.
os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "POWERTOOLS_SERVICE_NAME": "tests",
        "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
    }
)
for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
    os.environ.pop(name, None)

# moto's DynamoDB behaves like DynamoDB in every test, as in the local runtime (local/dynamodb/fidelity/).
from local.dynamodb import fidelity as moto_fidelity  # noqa: E402

moto_fidelity.apply()

# moto gives every test a new default boto3 Session, and each Session's loader would read botocore's JSON models again
# (endpoints, partitions, each service's model: about 70 ms a client). The data is the same, read-only file content:
# one loader per data path for the whole process.


class _SearchPaths(list):
    """A loader's search paths, each once: every boto3 Session appends boto3's own data directory to its loader's."""

    def append(self, path):
        if path not in self:
            super().append(path)


@functools.cache
def _shared_loader(search_path_string=None):
    loader = _create_loader(search_path_string)
    loader._search_paths = _SearchPaths(loader.search_paths)  # the list the `search_paths` property returns
    return loader


_create_loader, botocore.session.create_loader = botocore.session.create_loader, _shared_loader


# tests/functional's checks of what the whole functional suite did (every grant used, every documented status got)
# are judged once, by the controller, with what every worker's tests observed (tests/support/whole_suite.py).
WHOLE_SUITE_CHECKS = ("test_grants.py", "test_openapi_responses.py", "test_pattern_actions.py")


def pytest_configure(config) -> None:
    from tests.support.whole_suite import WholeSuite

    directory = Path(__file__).resolve().parent / "functional"
    config.pluginmanager.register(WholeSuite(directory, WHOLE_SUITE_CHECKS), "whole-suite-functional")


# `make test` runs the suite on two workers (pytest-xdist, `-n 2`). Work is handed out by scope, as xdist's
# `--dist loadscope` does (a module a scope), except for tests/e2e, which stays on one worker: its tests share one
# local runtime, and a second one would start a second synth, moto and set of function workers on the same two
# cores (docs/adr/0122-whole-suite-checks-judged-by-the-controller.md). xdist's own `--dist loadgroup` cannot express
# this under pytest 9 (it renames node ids, which pytest 9 no longer reads).
WHOLE_DIRECTORIES = ("tests/e2e/",)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: plain `pytest -p no:xdist` must still run
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class WholeDirectories(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            for directory in WHOLE_DIRECTORIES:
                if nodeid.startswith(directory):
                    return directory
            return super()._split_scope(nodeid)

    return WholeDirectories(config, log)
