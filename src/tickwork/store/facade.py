"""`ScheduleStore`, the one object the tick and the tools hold: the families of the schedules'
tables side by side, each its own class, over one database."""

from .app_row import AppRow
from .claims import Claims
from .ends import EndRecords
from .leases import Leases
from .schedules import Schedules


class ScheduleStore(AppRow, Schedules, Leases, Claims, EndRecords):
    """The app's row, the state rows, the lapsed leases, the claim batch and the ends."""
