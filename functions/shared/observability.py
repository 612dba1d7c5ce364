"""One Logger, Tracer and Metrics per function process; service name from POWERTOOLS_SERVICE_NAME."""

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger()
tracer = Tracer()
metrics = Metrics(namespace="Blueprints")
