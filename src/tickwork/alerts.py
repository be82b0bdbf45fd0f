"""The old path of `tickwork.outbox.alerts`, kept while code still imports it."""

from .outbox.alerts import GAP_WITH_ALERT as GAP_WITH_ALERT
from .outbox.alerts import LAPSED_ALERTS as LAPSED_ALERTS
from .outbox.alerts import TURNS as TURNS
from .outbox.alerts import Alerts as Alerts
from .outbox.alerts import deliveries as deliveries
from .outbox.alerts import sendable as sendable

__all__ = ["Alerts", "GAP_WITH_ALERT", "LAPSED_ALERTS", "TURNS", "deliveries"]
