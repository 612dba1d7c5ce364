"""Connected car's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "connected-car",
    put_dealer=Route("PUT", "/connected-car/dealers/{dealerId}", group=ADMIN),
    get_dealer=Route("GET", "/connected-car/dealers/{dealerId}", responses={404: "404 DEALER_NOT_FOUND"}),
    put_timeslot=Route("PUT", "/connected-car/dealers/{dealerId}/timeslots/{serviceDateHour}", group=ADMIN, responses={
        404: "404 DEALER_NOT_FOUND",
        409: "409 BAYS_IN_USE",
    }),
    timeslots_of=Route("GET", "/connected-car/dealers/{dealerId}/timeslots", paged=True, responses={
        404: "404 DEALER_NOT_FOUND",
    }),
    appointments_of_timeslot=Route(
        "GET", "/connected-car/dealers/{dealerId}/timeslots/{serviceDateHour}/appointments", group=ADMIN, paged=True,
        responses={
            404: "404 TIMESLOT_NOT_FOUND",
        },
    ),
    put_customer=Route("PUT", "/connected-car/customers/{username}", responses={403: "403 FORBIDDEN"}),
    get_customer=Route("GET", "/connected-car/customers/{username}", responses={
        403: "403 FORBIDDEN",
        404: "404 CUSTOMER_NOT_FOUND",
    }),
    active_customers=Route("GET", "/connected-car/customers", group=ADMIN, paged=True),
    put_vehicle=Route("PUT", "/connected-car/vehicles/{vin}", group=ADMIN),
    get_vehicle=Route("GET", "/connected-car/vehicles/{vin}", responses={404: "404 VEHICLE_NOT_FOUND"}),
    put_registration=Route("PUT", "/connected-car/customers/{username}/registrations/{vin}", responses={
        403: "403 FORBIDDEN",
        404: "404 CUSTOMER_NOT_FOUND, VEHICLE_NOT_FOUND",
        409: "409 VEHICLE_ALREADY_REGISTERED",
    }),
    registrations_of_customer=Route("GET", "/connected-car/customers/{username}/registrations", paged=True, responses={
        403: "403 FORBIDDEN",
        404: "404 CUSTOMER_NOT_FOUND",
    }),
    registrations_of_vehicle=Route(
        "GET", "/connected-car/vehicles/{vin}/registrations", group=ADMIN, paged=True,
        responses={
            404: "404 VEHICLE_NOT_FOUND",
        },
    ),
    appointments_of_registration=Route(
        "GET", "/connected-car/customers/{username}/registrations/{vin}/appointments", paged=True,
        responses={
            403: "403 FORBIDDEN",
            404: "404 REGISTRATION_NOT_FOUND",
        },
    ),
    book=Route("POST", "/connected-car/appointments", responses={
        201: "booked",
        403: "403 FORBIDDEN",
        404: "404 REGISTRATION_NOT_FOUND, TIMESLOT_NOT_FOUND",
        409: "409 REGISTRATION_INACTIVE, TIMESLOT_FULL",
    }),
    get_appointment=Route("GET", "/connected-car/appointments/{appointmentId}", responses={
        403: "403 FORBIDDEN",
        404: "404 APPOINTMENT_NOT_FOUND",
    }),
    cancel=Route("DELETE", "/connected-car/appointments/{appointmentId}", responses={
        204: "cancelled",
        403: "403 FORBIDDEN",
        404: "404 APPOINTMENT_NOT_FOUND",
    }),
    submit_event=Route("POST", "/connected-car/vehicles/{vin}/events", responses={
        201: "stored",
        403: "403 FORBIDDEN",
        404: "404 VEHICLE_NOT_FOUND",
    }),
    events_of=Route("GET", "/connected-car/vehicles/{vin}/events", paged=True, responses={
        403: "403 FORBIDDEN",
        404: "404 VEHICLE_NOT_FOUND",
    }),
)
