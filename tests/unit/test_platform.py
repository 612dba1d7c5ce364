"""The platform function (GET /health, GET /docs): it starts without the domains and describes them all on demand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter, as a cold Lambda environment: which domain modules the import loaded, then /health and
# /docs?format=json through the resolver, and which domains the description then holds.
PROBE = """
import json, sys
import functions.platform.api as platform
from tests.support.events import rest_event
loaded = sorted(name for name in sys.modules if name.startswith("functions.") and name.endswith(".api"))
health = platform.app.resolve(rest_event("GET", "/health", resource="/health", claims=None), None)
after_health = sorted(name for name in sys.modules if name.startswith("functions.") and name.endswith(".api"))
docs = platform.app.resolve(rest_event("GET", "/docs?format=json", resource="/docs", claims=None), None)
domains = sorted({path.split("/")[1] for path in json.loads(docs["body"])["paths"]})
print(json.dumps({"loaded": loaded, "health": health["statusCode"], "after_health": after_health,
                  "docs": docs["statusCode"], "domains": domains}))
"""


def test_health_is_served_without_importing_any_domain_and_docs_describes_every_domain():
    run = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["loaded"] == ["functions.platform.api"]
    assert (seen["health"], seen["after_health"]) == (200, ["functions.platform.api"])
    packages = sorted(path.parent.name.replace("_", "-") for path in (ROOT / "functions").glob("*/api.py")
                      if path.parent.name != "platform")
    assert seen["docs"] == 200 and seen["domains"] == packages
