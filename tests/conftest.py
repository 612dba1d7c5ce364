import os

# Every test runs against fakes: no call may reach AWS, whatever the developer's shell holds.
os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "POWERTOOLS_SERVICE_NAME": "tests",
        "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
    }
)
for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
    os.environ.pop(name, None)

# moto's DynamoDB Streams behave like DynamoDB's in every test, as in the local runtime (local/moto_fidelity.py).
from local import moto_fidelity  # noqa: E402

moto_fidelity.apply()
