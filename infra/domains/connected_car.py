"""ConnectedCar (seed 001): seven tables, the API function, the isActive stream consumer, routes and grants."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from functions.connected_car.schema import (
    ACTIVE_CUSTOMER_INDEX,
    APPOINTMENT_TABLE,
    CUSTOMER_TABLE,
    DEALER_TABLE,
    EVENT_TABLE,
    REGISTRATION_APPOINTMENT_INDEX,
    REGISTRATION_TABLE,
    TABLES,
    TIMESLOT_APPOINTMENT_INDEX,
    TIMESLOT_TABLE,
    VEHICLE_EVENT_TYPE_INDEX,
    VEHICLE_REGISTRATION_INDEX,
    VEHICLE_TABLE,
)
from functions.connected_car.service import DEFAULT_EVENT_RETENTION_DAYS
from functions.shared.idempotency import IDEMPOTENCY_TABLE
from infra.constructs.api_function import ApiFunction, SharedCode, grant_secret_value
from infra.constructs.rest_api import BlueprintsApi, Route
from infra.constructs.spec_table import IDEMPOTENCY_ACTIONS, SpecTable
from infra.constructs.stream_consumer import StreamConsumer

PREFIX = "/connected-car"
ROUTES = [
    Route("PUT", f"{PREFIX}/dealers/{{dealerId}}"),
    Route("GET", f"{PREFIX}/dealers/{{dealerId}}"),
    Route("PUT", f"{PREFIX}/dealers/{{dealerId}}/timeslots/{{serviceDateHour}}"),
    Route("GET", f"{PREFIX}/dealers/{{dealerId}}/timeslots"),
    Route("GET", f"{PREFIX}/dealers/{{dealerId}}/timeslots/{{serviceDateHour}}/appointments"),
    Route("GET", f"{PREFIX}/customers"),
    Route("PUT", f"{PREFIX}/customers/{{username}}"),
    Route("GET", f"{PREFIX}/customers/{{username}}"),
    Route("PUT", f"{PREFIX}/customers/{{username}}/registrations/{{vin}}"),
    Route("GET", f"{PREFIX}/customers/{{username}}/registrations"),
    Route("GET", f"{PREFIX}/customers/{{username}}/registrations/{{vin}}/appointments"),
    Route("PUT", f"{PREFIX}/vehicles/{{vin}}"),
    Route("GET", f"{PREFIX}/vehicles/{{vin}}"),
    Route("GET", f"{PREFIX}/vehicles/{{vin}}/registrations"),
    Route("POST", f"{PREFIX}/vehicles/{{vin}}/events"),
    Route("GET", f"{PREFIX}/vehicles/{{vin}}/events"),
    Route("POST", f"{PREFIX}/appointments"),
    Route("GET", f"{PREFIX}/appointments/{{appointmentId}}"),
    Route("DELETE", f"{PREFIX}/appointments/{{appointmentId}}"),
]


class ConnectedCarDomain(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        api: BlueprintsApi,
        shared: SharedCode,
        cursor_secret: secretsmanager.ISecret,
        idempotency: SpecTable,
        parked: SpecTable,
        removal_policy: RemovalPolicy,
        deletion_protection: bool,
    ):
        super().__init__(scope, construct_id)
        self.tables = {
            spec.construct_id: SpecTable(
                self, spec, removal_policy=removal_policy, deletion_protection=deletion_protection
            )
            for spec in TABLES
        }
        dealer, timeslot, customer, vehicle, registration, appointment, event = (
            self.tables[spec.construct_id]
            for spec in (
                DEALER_TABLE, TIMESLOT_TABLE, CUSTOMER_TABLE, VEHICLE_TABLE, REGISTRATION_TABLE, APPOINTMENT_TABLE,
                EVENT_TABLE,
            )
        )
        self.api_function = ApiFunction(
            self,
            "Api",
            shared=shared,
            handler="functions.connected_car.api.lambda_handler",
            service="connected-car",
            removal_policy=removal_policy,
            environment={
                **{table.spec.env_var: table.table.table_name for table in self.tables.values()},
                "CURSOR_SECRET_ARN": cursor_secret.secret_arn,
                IDEMPOTENCY_TABLE.env_var: idempotency.table.table_name,
                "EVENT_RETENTION_DAYS": str(DEFAULT_EVENT_RETENTION_DAYS),
            },
        ).function
        # Exactly what functions/connected_car/repository.py calls, table by table.
        fn = self.api_function
        dealer.grant(fn, ["GetItem", "PutItem", "ConditionCheckItem"])
        timeslot.grant(fn, ["GetItem", "Query", "UpdateItem"])
        customer.grant(fn, ["GetItem", "UpdateItem"], indexes=(ACTIVE_CUSTOMER_INDEX,))
        vehicle.grant(fn, ["GetItem", "UpdateItem", "ConditionCheckItem"])
        registration.grant(
            fn, ["GetItem", "Query", "UpdateItem", "ConditionCheckItem"], indexes=(VEHICLE_REGISTRATION_INDEX,)
        )
        appointment.grant(
            fn,
            ["GetItem", "PutItem", "DeleteItem"],
            indexes=(TIMESLOT_APPOINTMENT_INDEX, REGISTRATION_APPOINTMENT_INDEX),
        )
        event.grant(fn, ["Query", "PutItem"], indexes=(VEHICLE_EVENT_TYPE_INDEX,))
        idempotency.grant(fn, IDEMPOTENCY_ACTIONS)
        grant_secret_value(fn, cursor_secret)
        api.add_routes(fn, ROUTES)

        # Customer.isActive follows the registrations (functions/connected_car/active_customers.py).
        self.active_customers = StreamConsumer(
            self,
            "ActiveCustomers",
            table=registration,
            parked=parked,
            shared=shared,
            handler="functions.connected_car.active_customers.lambda_handler",
            service="connected-car",
            environment={
                CUSTOMER_TABLE.env_var: customer.table.table_name,
                REGISTRATION_TABLE.env_var: registration.table.table_name,
            },
            removal_policy=removal_policy,
            batch_size=50,
            max_record_age=Duration.hours(6),
        )
        customer.grant(self.active_customers.function, ["GetItem", "UpdateItem"])
        registration.grant(self.active_customers.function, ["Query"])
