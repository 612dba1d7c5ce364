"""API shapes of the voting domain (camelCase on the wire, times in UTC)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import AfterValidator, Field, StringConstraints

from functions.shared.models import WHITE_SPACE, ApiModel, stripped_rules

POLL_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
PollIdPath = Annotated[str, Path(pattern=POLL_ID_PATTERN)]

# A candidate is part of an aggregate's sort key (TOTAL#<candidate>#<segment>): no "#", no control characters,
# no surrounding spaces (so "A" and "A " cannot be two candidates that look alike).
CANDIDATE_PATTERN = rf"^[^#\x00-\x1f\x7f{WHITE_SPACE}](?:[^#\x00-\x1f\x7f]{{0,62}}[^#\x00-\x1f\x7f{WHITE_SPACE}])?$"
MIN_CANDIDATES = 2
MAX_CANDIDATES = 50

Candidate = Annotated[str, StringConstraints(pattern=CANDIDATE_PATTERN)]


def distinct(candidates: list[str]) -> list[str]:
    if len(set(candidates)) != len(candidates):
        raise ValueError("candidates must be distinct")
    return candidates


class PollIn(ApiModel):
    question: Annotated[str, *stripped_rules(1, 300)]
    candidates: Annotated[
        list[Candidate],
        Field(min_length=MIN_CANDIDATES, max_length=MAX_CANDIDATES, json_schema_extra={"uniqueItems": True}),
        AfterValidator(distinct),
    ]


class Poll(ApiModel):
    poll_id: str
    question: str
    candidates: list[str]
    created_at: datetime


class VoteIn(ApiModel):
    candidate: Candidate


class Vote(ApiModel):
    poll_id: str
    candidate: str
    voted_at: datetime
    updated_at: datetime


class Results(ApiModel):
    poll_id: str
    totals: dict[str, int] = Field(description="votes per candidate, every candidate of the poll")
    total_votes: int


class Recount(Results):
    corrected: dict[str, int] = Field(
        description="the drift corrected per candidate (recounted minus aggregated); empty when there was none"
    )
