"""Tables declared once, as plain data.

The same `TableSpec` builds the CDK table (infra/constructs/spec_table.py) and the moto tables of the
functional tests; the local runtime reads the synthesized template, which the CDK built from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

AttributeType = Literal["S", "N", "B"]
StreamView = Literal["NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"]


@dataclass(frozen=True)
class KeyAttribute:
    name: str
    type: AttributeType = "S"


@dataclass(frozen=True)
class IndexSpec:
    """A global secondary index. `projection` is "ALL", "KEYS_ONLY" or the non-key attributes to include."""

    name: str
    partition_key: KeyAttribute
    sort_key: KeyAttribute | None = None
    projection: Literal["ALL", "KEYS_ONLY"] | tuple[str, ...] = "ALL"

    @property
    def key_attributes(self) -> tuple[KeyAttribute, ...]:
        return (self.partition_key,) if self.sort_key is None else (self.partition_key, self.sort_key)


@dataclass(frozen=True)
class TableSpec:
    """A DynamoDB table: keys, indexes, TTL and stream, plus the environment variable that names it (by default the
    construct id in upper snake case with `_NAME`: `UserGamesTable` -> `USER_GAMES_TABLE_NAME`)."""

    construct_id: str
    partition_key: KeyAttribute
    sort_key: KeyAttribute | None = None
    indexes: tuple[IndexSpec, ...] = ()
    ttl_attribute: str | None = None
    stream_view: StreamView | None = None
    env_var: str = ""

    def __post_init__(self) -> None:
        if not self.env_var:
            words = re.findall(r"[A-Z][a-z0-9]*", self.construct_id)
            object.__setattr__(self, "env_var", "_".join(words).upper() + "_NAME")

    @property
    def key_attributes(self) -> tuple[KeyAttribute, ...]:
        return (self.partition_key,) if self.sort_key is None else (self.partition_key, self.sort_key)

    def index(self, name: str) -> IndexSpec:
        for index in self.indexes:
            if index.name == name:
                return index
        raise KeyError(name)

    def create_table_kwargs(self, table_name: str) -> dict[str, Any]:
        """Arguments for boto3 `create_table`, for tests that build the table without the CDK."""
        attributes: dict[str, str] = {}
        for attr in self.key_attributes + tuple(a for i in self.indexes for a in i.key_attributes):
            attributes[attr.name] = attr.type
        kwargs: dict[str, Any] = {
            "TableName": table_name,
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": _key_schema(self.partition_key, self.sort_key),
            "AttributeDefinitions": [{"AttributeName": n, "AttributeType": t} for n, t in attributes.items()],
        }
        if self.indexes:
            kwargs["GlobalSecondaryIndexes"] = [
                {
                    "IndexName": index.name,
                    "KeySchema": _key_schema(index.partition_key, index.sort_key),
                    "Projection": _projection(index.projection),
                }
                for index in self.indexes
            ]
        if self.stream_view:
            kwargs["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": self.stream_view}
        return kwargs


def _key_schema(partition_key: KeyAttribute, sort_key: KeyAttribute | None) -> list[dict[str, str]]:
    schema = [{"AttributeName": partition_key.name, "KeyType": "HASH"}]
    if sort_key is not None:
        schema.append({"AttributeName": sort_key.name, "KeyType": "RANGE"})
    return schema


def _projection(projection: Literal["ALL", "KEYS_ONLY"] | tuple[str, ...]) -> dict[str, Any]:
    if isinstance(projection, str):
        return {"ProjectionType": projection}
    return {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(projection)}
