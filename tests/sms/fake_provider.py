"""A local fake HTTP server that answers like Kavenegar / Melipayamak (never the internet)."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


class FakeProvider:
    """``responses`` is a list of (http_status, body) or "timeout" / "drop" popped per request."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.responses: list = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                server.requests.append({"path": self.path, "form": form})
                answer = server.responses.pop(0) if server.responses else (200, {})
                if answer == "timeout":
                    time.sleep(1.5)
                    return
                if answer == "drop":
                    self.connection.close()
                    return
                status, body = answer
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
