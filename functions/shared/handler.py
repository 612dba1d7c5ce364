"""The Lambda entry points every domain uses: an API function's handler and a stream consumer's handler.

One place for what each handler needs around it (Powertools' logger with the Lambda context, the tracer, metrics
flushed at the end) so that a domain's `api.py` ends with `lambda_handler = api_handler(app)` and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.shared.http import DomainRouter, Resolver, build_resolver
from functions.shared.observability import logger, metrics, tracer

Handler = Callable[[dict, LambdaContext], dict]
# A stream consumer answers Powertools' partial batch response (a TypedDict) or a replay's summary.
ConsumerHandler = Callable[[dict, LambdaContext], Mapping[str, Any]]


def api_handler(app: Resolver) -> Handler:
    """The handler of an API function: the resolver's answer to a REST (v1) proxy event."""

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
    # capture_response=False: a response (session tokens, emails, addresses) must not be copied into X-Ray traces.
    @tracer.capture_lambda_handler(capture_response=False)
    @metrics.log_metrics
    def lambda_handler(event: dict, context: LambdaContext) -> dict:
        return app.resolve(event, context)

    return lambda_handler


def serve(router: DomainRouter, *, public: bool = False) -> tuple[Resolver, Handler]:
    """The function's resolver (every route needs a signed-in caller, unless `public`) with its router, and the
    Lambda handler."""
    app = build_resolver(public=public)
    app.include_router(router)
    return app, api_handler(app)


def consumer_handler(
    process: Callable[[dict, LambdaContext], Mapping[str, Any]], replay: Callable[[Mapping[str, Any]], dict]
) -> ConsumerHandler:
    """The handler of a stream consumer: a batch of stream records goes to `process`; an operator's
    `{"replay": {...}}` (functions/shared/parked.py, `make replay`) goes to `replay`."""
    # Imported here: parked loads Powertools' batch utility, which an API function never needs (cold start).
    from functions.shared import parked

    @logger.inject_lambda_context
    @tracer.capture_lambda_handler
    @metrics.log_metrics
    def lambda_handler(event: dict, context: LambdaContext) -> Mapping[str, Any]:
        request = parked.replay_request(event)
        if request is not None:
            return replay(request)
        return process(event, context)

    return lambda_handler
