"""DynamoDB stream event source mappings, run locally: moto accepts an `AWS::Lambda::EventSourceMapping` but never
delivers a record (it runs no function without Docker), so the runtime reads each mapped table's stream (DescribeStream,
GetShardIterator, GetRecords) and invokes the consumer's worker with the event Lambda sends, honouring BatchSize,
StartingPosition, MaximumBatchingWindowInSeconds, FunctionResponseTypes, MaximumRetryAttempts,
BisectBatchOnFunctionError, MaximumRecordAgeInSeconds, DestinationConfig.OnFailure (SQS), TumblingWindowInSeconds and
FilterCriteria; any other property fails the start. Modules: `mapping` (the template's mappings, Lambda's record shape),
`poller` (reading shards, delivering), `filters` (FilterCriteria: a record no filter matches is dropped as it is read),
`failures` (partial responses, bisection, retries, maximum age, on-failure destination), `windows` (tumbling windows).

The rules follow the AWS Lambda Developer Guide, quoted where each is implemented:
- [PARTIAL] "Configuring partial batch response with DynamoDB and Lambda"
  (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html);
- [ERRORS] "Retaining discarded records for a DynamoDB event source in Lambda"
  (https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html);
- [PARAMS] "Lambda parameters for Amazon DynamoDB event source mappings"
  (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html);
- [FILTERS] "Control which events Lambda sends to your function"
  (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html).
"""

from local.streams.failures import Outcome, item_failures
from local.streams.filters import FilterCriteria
from local.streams.mapping import MappingSpec, StreamRecord, lambda_record, mapping_specs
from local.streams.poller import Streams

__all__ = ["FilterCriteria", "MappingSpec", "Outcome", "StreamRecord", "Streams", "item_failures", "lambda_record",
           "mapping_specs"]
