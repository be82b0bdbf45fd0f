"""The old path of `tickwork.outbox.consumers`, kept while code and apps still import it."""

from .declare import CONSUMES as CONSUMES  # the build reads it here
from .declare import consumer as consumer
from .outbox.consumers import Consumer as Consumer
from .outbox.consumers import Message as Message
from .outbox.consumers import Received as Received
from .outbox.consumers import consume as consume
from .outbox.consumers import received as received
