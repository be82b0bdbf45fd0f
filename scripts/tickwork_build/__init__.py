"""`tickwork build`: validates an app's declarations (with pydantic) and writes what the Worker
loads. Build-time only: nothing here is bundled into the Worker."""
