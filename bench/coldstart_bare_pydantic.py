"""A reference row of bench section 10, beside the resolver's: one pydantic model validating the body in a bare
handler, with no Powertools at all. With `bench.coldstart_resolver` (Powertools without pydantic) it splits the floor
into its two parts, each of which an API function of this stack needs. Imported by the cold-start probe only; never
deployed."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel


class Item(BaseModel):
    name: str


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    item = Item.model_validate_json(event["body"])
    return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": json.dumps(item.model_dump())}
