"""The floor of bench section 10: the least an API function of this stack imports, with no domain code — Powertools'
Logger and REST resolver with its OpenAPI validation (`enable_validation=True`, what every API function uses) and one
route whose body a pydantic model validates. Imported by the cold-start probe only; never deployed."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from pydantic import BaseModel

logger = Logger()
app = APIGatewayRestResolver(enable_validation=True)


class Item(BaseModel):
    name: str


@app.post("/items")
def create(item: Item) -> Item:
    return item


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
