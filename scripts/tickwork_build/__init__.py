"""`tickwork build`: validates an app's declarations and writes what the Worker loads.
Build-time only (it uses pydantic): nothing here is bundled into the Worker."""
