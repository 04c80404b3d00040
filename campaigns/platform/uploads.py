"""Upload size limit enforced while the body is parsed, not after it was read.

``SizeLimitedUploadHandler`` is the first of ``FILE_UPLOAD_HANDLERS``: when the declared
``Content-Length`` or the bytes received for one file pass ``IMPORT_MAX_BYTES``, it stops the
parser without reading the rest of the body and marks the request; views then answer with the
size error (``upload_too_large``).
"""

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload

MULTIPART_OVERHEAD = 64 * 1024  # form fields and part headers around the file


def upload_too_large(request) -> bool:
    """True when this request's upload is over the limit (declared length or marked while parsing)."""
    request = getattr(request, "_request", request)  # a DRF Request wraps the Django one
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    return declared > settings.IMPORT_MAX_BYTES + MULTIPART_OVERHEAD or getattr(request, "upload_too_large", False)


class SizeLimitedUploadHandler(FileUploadHandler):
    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        self.declared_too_large = content_length > settings.IMPORT_MAX_BYTES + MULTIPART_OVERHEAD

    def _stop(self):
        if self.request is not None:
            self.request.upload_too_large = True
        raise StopUpload(connection_reset=True)

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        if getattr(self, "declared_too_large", False):
            self._stop()

    def receive_data_chunk(self, raw_data, start):
        if start + len(raw_data) > settings.IMPORT_MAX_BYTES:
            self._stop()
        return raw_data

    def file_complete(self, file_size):
        return None  # the next handler builds the file
