"""The Worker: a minute cron trigger ticks the app's schedules against its D1 database, and the
queues it consumes reach the consumers the app declares."""

from workers import WorkerEntrypoint

import tickwork_manifest
from tickwork.adapters.workers import run_cron_tick, run_queue
from tickwork.app import App

APP = App.from_manifest(tickwork_manifest)


class Default(WorkerEntrypoint):
    async def scheduled(self, controller, env=None, ctx=None):
        await run_cron_tick(APP, self.env, controller, self.ctx)

    async def queue(self, batch, env=None, ctx=None):
        await run_queue(APP, self.env, batch, self.ctx)
