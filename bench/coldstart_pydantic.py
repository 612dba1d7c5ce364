"""A reference row of bench section 10, below the floor: `bench.coldstart_resolver` plus one pydantic model that the
route validates itself, without Powertools' validation (`enable_validation` off). Imported by the cold-start probe
only; never deployed."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from pydantic import BaseModel

logger = Logger()
app = APIGatewayRestResolver()


class Item(BaseModel):
    name: str


@app.post("/items")
def create() -> dict[str, Any]:
    return Item.model_validate(app.current_event.json_body).model_dump()


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
