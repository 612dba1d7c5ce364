"""GET /explorer/scale/{model}?rate= (the explorer's what-if, functions/platform/scale/what_if.py): what it refuses,
and what it costs the platform function: no domain, no workload, no AWS SDK. That its rows are `make scale`'s at the
rate asked: tests/unit/test_scale.py; the page's input: tests/e2e/test_explorer_scale.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from functions.platform import api as platform
from functions.platform.scale import MAX_RATE_PER_S
from tests.support.events import rest_event

ROOT = Path(__file__).resolve().parents[2]
RESOURCE = "/explorer/scale/{model}"


def get(path: str) -> tuple[int, dict]:
    answer = platform.app.resolve(rest_event("GET", path, resource=RESOURCE, claims=None), None)
    return answer["statusCode"], json.loads(answer["body"])


@pytest.mark.parametrize(("query", "message"), [
    ("", "Field required"),
    ("?rate=", "unable to parse string as an integer"),
    ("?rate=abc", "unable to parse string as an integer"),
    ("?rate=2.5", "unable to parse string as an integer"),
    ("?rate=1e3", "unable to parse string as an integer"),
    ("?rate=nan", "unable to parse string as an integer"),
    ("?rate=0", "greater than or equal to 1"),
    ("?rate=-5", "greater than or equal to 1"),
    (f"?rate={MAX_RATE_PER_S + 1}", f"less than or equal to {MAX_RATE_PER_S}"),
    ("?rate=" + "9" * 5000, "as an integer, exceeded maximum size"),  # past Python's digit limit: refused
])
def test_a_rate_that_is_not_a_whole_number_from_1_to_the_cap_is_refused_naming_the_field(query, message):
    status, answer = get(f"/explorer/scale/voting{query}")
    assert status == 400 and answer["error"]["code"] == "VALIDATION_FAILED"
    (detail,) = answer["error"]["details"]
    assert detail["field"] == "query.rate" and message in detail["message"]


def test_an_unknown_parameter_is_refused_and_an_unknown_model_is_not_found():
    status, answer = get("/explorer/scale/voting?rate=5000&rates=1")
    assert status == 400 and answer["error"]["code"] == "VALIDATION_FAILED"
    assert answer["error"]["details"] == [{"field": "query.rates", "message": "not a parameter of this route"}]
    status, answer = get("/explorer/scale/polls?rate=5000")
    assert status == 404 and answer["error"]["code"] == "MODEL_NOT_FOUND"
    assert "voting" in answer["error"]["message"] and "order-entry" in answer["error"]["message"]


def test_the_cap_is_a_rate_the_what_if_answers():
    status, answer = get(f"/explorer/scale/order-entry?rate={MAX_RATE_PER_S}")
    assert status == 200 and answer["rate_per_s"] == MAX_RATE_PER_S
    assert all(row["throttles"] for row in answer["rows"])  # every design is past its limits there


# In a fresh interpreter, as a cold Lambda environment: a what-if through the resolver, then what the process loaded.
PROBE = """
import json, sys
import functions.platform.api as platform
from tests.support.events import rest_event
before = set(sys.modules)
answer = platform.app.resolve(rest_event("GET", "/explorer/scale/cart?rate=20000", resource="/explorer/scale/{model}",
                                         claims=None), None)
print(json.dumps({"status": answer["statusCode"], "rows": len(json.loads(answer["body"])["rows"]),
                  "imported": sorted(name for name in set(sys.modules) - before
                                     if name.split(".")[0] in ("functions", "bench", "boto3", "seeds", "tools"))}))
"""


def test_a_what_if_imports_no_domain_no_workload_and_no_sdk():
    run = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["status"] == 200 and seen["rows"] == 4
    # what the first what-if loads: the verdict and the committed sums, nothing that runs a workload
    assert seen["imported"] == ["functions.platform.scale.model", "functions.platform.scale.what_if"]
