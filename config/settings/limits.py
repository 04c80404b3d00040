"""Bounds on untrusted and large data: imports, exports and how long history is kept."""

import os

# Imports: upload size, rows, columns, declared unzipped size of an .xlsx, runs without progress.
IMPORT_MAX_BYTES = int(os.environ.get("IMPORT_MAX_BYTES", str(10 * 1024 * 1024)))
IMPORT_MAX_ROWS = int(os.environ.get("IMPORT_MAX_ROWS", "100000"))
IMPORT_MAX_COLUMNS = int(os.environ.get("IMPORT_MAX_COLUMNS", "50"))
IMPORT_MAX_UNZIPPED_BYTES = int(os.environ.get("IMPORT_MAX_UNZIPPED_BYTES", str(100 * 1024 * 1024)))
# What the import task holds of an .xlsx: shared strings (count, UTF-8 bytes together) and cells read.
IMPORT_MAX_STRINGS = int(os.environ.get("IMPORT_MAX_STRINGS", "1000000"))
IMPORT_MAX_STRING_BYTES = int(os.environ.get("IMPORT_MAX_STRING_BYTES", str(32 * 1024 * 1024)))
IMPORT_MAX_CELLS = int(os.environ.get("IMPORT_MAX_CELLS", "2000000"))
# XML elements of all the parts one .xlsx read parses (its time; memory is bounded by the element depth, 20).
IMPORT_MAX_XML_ELEMENTS = int(os.environ.get("IMPORT_MAX_XML_ELEMENTS", "5000000"))
IMPORT_MAX_ATTEMPTS = int(os.environ.get("IMPORT_MAX_ATTEMPTS", "3"))
# Stops parsing an upload body once a file passes IMPORT_MAX_BYTES (campaigns/uploads.py).
FILE_UPLOAD_HANDLERS = [
    "campaigns.platform.uploads.SizeLimitedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# Largest synchronous .xlsx export; above it the request asks for a narrower filter.
TARGETS_EXPORT_MAX_ROWS = int(os.environ.get("TARGETS_EXPORT_MAX_ROWS", "20000"))
# History tables by month on PostgreSQL (campaigns.platform.partitions): the months created ahead by the daily
# job, and the months of history kept (older months are dropped whole; 0 = keep forever).
HISTORY_PARTITIONS_AHEAD = int(os.environ.get("HISTORY_PARTITIONS_AHEAD", "3"))
HISTORY_RETENTION_MONTHS = int(os.environ.get("HISTORY_RETENTION_MONTHS", "0"))
