"""Public routes of the whole API: GET /health and the OpenAPI docs (Swagger UI at GET /docs)."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from constructs import Construct

from infra.constructs.api_function import ApiFunction, SharedCode
from infra.constructs.rest_api import BlueprintsApi, Route

ROUTES = [Route("GET", "/health", public=True), Route("GET", "/docs", public=True)]


class PlatformDomain(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, api: BlueprintsApi, shared: SharedCode,
                 removal_policy: RemovalPolicy):
        super().__init__(scope, construct_id)
        # No grants at all: it only describes the other domains' routes.
        self.api_function = ApiFunction(
            self,
            "Api",
            shared=shared,
            handler="functions.platform.api.lambda_handler",
            service="platform",
            removal_policy=removal_policy,
            environment={},
        ).function
        self.public_methods = api.add_routes(self.api_function, ROUTES)
