"""The benchmarks: ``manage.py bench_*`` commands, the harness they share and the worlds they build.

A Django app of its own (``tests.bench``, label ``bench``) installed only where benchmarks run: ``BENCHMARKS``
(on by default with ``DEBUG``, so in development and CI; off in production). No product module imports it; it
reads every app through their public models and services (docs/benchmarks.md "Where the benchmarks live").
"""
