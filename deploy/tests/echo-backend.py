"""A stand-in for a Herald instance in the nginx tests: answers every request with JSON that
says which backend answered, on which connection, and what request line and headers arrived.
Usage: python3 echo-backend.py NAME PORT  (listens on 127.0.0.1 only)."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as Herald does

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        body = json.dumps({
            "backend": self.server.name,
            "connection": self.client_address[1],
            "request_version": self.request_version,
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = answer

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Echo)
server.daemon_threads = True
server.name = sys.argv[1]
server.serve_forever()
