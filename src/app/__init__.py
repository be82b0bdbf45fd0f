"""The example app: a planning domain with the schedules document's own `chore_census`."""
