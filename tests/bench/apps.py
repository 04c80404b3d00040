from django.apps import AppConfig


class BenchConfig(AppConfig):
    """The ``bench_*`` management commands; no models, no migrations, no URLs."""

    name = "tests.bench"
    label = "bench"
    verbose_name = "Benchmarks"
