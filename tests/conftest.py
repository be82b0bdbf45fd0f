import pytest
from helpers import open_store


@pytest.fixture
def db():
    database = open_store()
    yield database
    database.close()
