"""Measurements API (seed 002): ingest batches of device readings, read a device's readings between two instants."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.measurements import models
from functions.measurements.repository import MeasurementsRepository
from functions.measurements.schema import MAX_EPOCH
from functions.measurements.service import MeasurementsService
from functions.shared import kit

router = kit.DomainRouter.of(__file__)


def instant(name: str) -> Query:
    return Query(alias=name, ge=0, le=MAX_EPOCH,
                 description=f"epoch seconds, inclusive ({name}): every millisecond of the second")


service = kit.service(MeasurementsService, MeasurementsRepository)
Service = Annotated[MeasurementsService, kit.Depends(service)]


# Admins only: the ingest pipeline (the seed's Kinesis stage) signs in as an admin; a batch spans many devices.
@router.serve
def ingest(batch: models.ReadingBatch, svc: Service) -> models.IngestResult:
    """Store a batch of device readings."""
    result = svc.ingest(batch)
    kit.metrics.add_metric(name="ReadingsIngested", unit="Count", value=result.readings)
    kit.metrics.add_metric(name="ReadingWrites", unit="Count", value=result.writes)
    return result


@router.serve
@kit.paged
def readings_of(device_id: models.DevicePath, first: Annotated[int, instant("from")], last: Annotated[int,
                                                                                                      instant("to")],
                svc: Service, page: kit.PageRequest) -> models.ReadingPage:
    """List a device's readings over a time range."""
    return page.of(models.ReadingPage, svc.readings_of, device_id, first, last)


app, lambda_handler = kit.serve(router)
