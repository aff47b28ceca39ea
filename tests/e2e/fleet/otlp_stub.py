#!/usr/bin/env python3
"""An OTLP/HTTP receiver stub on loopback, for fleet.bats.

otlp_stub.py DIR MODE: listens on 127.0.0.1 (a free port, written to
DIR/port), and for each POST saves the body as DIR/N.json and its request
line and headers as DIR/N.hdr. MODE ok answers 200 {}, fail answers 500,
hang reads the request and never answers.
"""
import http.server
import os
import sys
import threading
import time

DIR, MODE = sys.argv[1], sys.argv[2]
count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def _take(self):
        global count
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            count += 1
            n = count
        with open(os.path.join(DIR, "%d.hdr" % n), "w") as f:
            f.write("%s %s\n" % (self.command, self.path))
            for k, v in self.headers.items():
                f.write("%s: %s\n" % (k.lower(), v))
        with open(os.path.join(DIR, "%d.json" % n), "wb") as f:
            f.write(body)
        if MODE == "hang":
            time.sleep(3600)
        code = 500 if MODE == "fail" else 200
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        msg = b'{"code": 13, "message": "stub told to fail"}' if code == 500 else b"{}"
        self.send_header("Content-Length", str(len(msg)))
        self.end_headers()
        self.wfile.write(msg)

    do_POST = _take
    do_PUT = _take

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
srv.daemon_threads = True
with open(os.path.join(DIR, "port.tmp"), "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
srv.serve_forever()
