"""ConnectedCar (seed 001): dealers, timeslots, customers, vehicles, registrations, appointments, events."""
