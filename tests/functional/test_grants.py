"""Grants both ways: every grant a function holds was used by some functional test of it.

A whole-suite check (tests/support/whole_suite.py): called once, when every functional test has run (on whichever
worker), with what all their handlers used merged; skipped, saying why, when not every one ran. A grant no test
exercised is either unneeded (remove it) or untested (test the code that needs it): either way this fails.
The missing-grant direction needs no test of its own: every handler call is checked (tests/support/iam.py).
"""

from __future__ import annotations

from tests.support.whole_suite import Observations

# Grants the function's code never uses because AWS uses them on its behalf. Each says who uses it.
USED_BY_AWS = {
    "logs:CreateLogStream": "Lambda writes the function's output to its own log group with the role",
    "logs:PutLogEvents": "Lambda writes the function's output to its own log group with the role",
    "xray:PutTraceSegments": "with Tracing: Active, Lambda's X-Ray daemon sends the segments with the role",
    "xray:PutTelemetryRecords": "with Tracing: Active, Lambda's X-Ray daemon sends telemetry with the role",
    "dynamodb:DescribeStream": "the event source mapping reads the stream with the consumer's role "
    "(checked when the local runtime starts: local/iam.py check_mapping_role)",
    "dynamodb:GetShardIterator": "the event source mapping reads the stream with the consumer's role (idem)",
    "dynamodb:GetRecords": "the event source mapping reads the stream with the consumer's role (idem)",
    "dynamodb:ListStreams": "the event source mapping lists the table's streams with the consumer's role (idem)",
    "sqs:SendMessage": "the event source mapping sends failed batches' metadata to the on-failure queue (idem)",
    "sqs:GetQueueAttributes": "granted by CDK's SqsDlq with SendMessage (Queue.grant_send_messages); Lambda needs "
    "only SendMessage",
    "sqs:GetQueueUrl": "granted by CDK's SqsDlq with SendMessage (Queue.grant_send_messages); Lambda needs only "
    "SendMessage",
}


def test_every_grant_was_used_by_some_test(observations: Observations):
    unused = [
        f"{function}: {grant}"
        for function, grant in observations.unused_grants()
        if grant.action not in USED_BY_AWS
    ]
    assert unused == [], "grants no functional test used (remove them, or test the code that needs them):\n" + (
        "\n".join(unused)
    )
