import pytest

from automation.engine.graph import published_graph


@pytest.fixture(autouse=True)
def _fresh_graph_cache():
    published_graph.cache_clear()
    yield
    published_graph.cache_clear()
