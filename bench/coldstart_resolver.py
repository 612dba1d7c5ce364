"""A reference row of bench section 10, below the floor: Powertools' Logger and REST resolver with one route and no
pydantic at all (no validation, no model). Imported by the cold-start probe only; never deployed."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver

logger = Logger()
app = APIGatewayRestResolver()


@app.post("/items")
def create() -> dict[str, Any]:
    return {"name": str(app.current_event.json_body["name"])}


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
