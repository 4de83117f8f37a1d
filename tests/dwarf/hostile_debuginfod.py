#!/usr/bin/python3
"""tests/dwarf/hostile_debuginfod.py: a debuginfod server on 127.0.0.1 that misbehaves.

usage: hostile_debuginfod.py --port-file F --log F [--elf FILE] [--bomb-mib N] ROUTE...
ROUTE is HEXID=MODE: what GET /buildid/HEXID/debuginfo gets (any other path: 404):
  endless   200, no Content-Length, zeros until the client goes away (or --max-mib are sent)
  bomb      200, Content-Encoding: gzip: --bomb-mib MiB of zeros deflated to about 1/1000
  drip      200, Content-Length 1 MiB, then one byte a second
  wrongid   200, the --elf file (a valid ELF file of another build-id)
  redirect  after 50 ms, 302 to the same path with "?" added, and from there back: a redirect
            loop of 20 hops a second
  toobig    200, Content-Length 64 GiB, then zeros as endless
The port (a free one, chosen by the kernel) is written to the port file once the server
listens. The log gets a line when a request comes and one when its answer ends:
  GET MODE HEXID
  MODE HEXID sent=BYTES inflated=BYTES
(sent: body bytes written to the socket; inflated: what they inflate to for bomb, else sent;
MODE 404 for a path not routed).
"""
import argparse
import http.server
import os
import socketserver
import sys
import threading
import time
import zlib

CHUNK = 64 * 1024


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def make_bomb(mib):
    """mib MiB of zeros as one gzip member, and how many body bytes hold each MiB."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    zero = bytes(1 << 20)
    parts = [comp.compress(zero) for _ in range(mib)]
    parts.append(comp.flush())
    return b"".join(parts)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # the log file has our own lines only
        pass

    def line(self, text):
        cfg = self.server.cfg
        with cfg["lock"]:
            with open(cfg["log"], "a", encoding="ascii") as f:
                f.write(text + "\n")

    def record(self, mode, hexid, sent, inflated):
        self.line(f"{mode} {hexid} sent={sent} inflated={inflated}")

    def stream(self, data_fn, limit):
        """Writes data_fn() chunks until the client goes away or limit bytes; bytes sent."""
        sent = 0
        try:
            while sent < limit:
                chunk = data_fn(sent)
                if not chunk:
                    break
                self.wfile.write(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass
        return sent

    def do_GET(self):
        cfg = self.server.cfg
        parts = self.path.split("?")[0].split("/")
        hexid = parts[2] if len(parts) == 4 and parts[1] == "buildid" else ""
        mode = cfg["routes"].get(hexid) if parts[-1] == "debuginfo" else None
        self.line(f"GET {mode or 404} {hexid or '-'}")
        if mode is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            self.record("404", hexid or "-", 0, 0)
            return
        getattr(self, "serve_" + mode)(hexid)

    def head(self, length=None, extra=()):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if length is not None:
            self.send_header("Content-Length", str(length))
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def serve_endless(self, hexid):
        self.head()
        zero = bytes(CHUNK)
        sent = self.stream(lambda _: zero, self.server.cfg["max"])
        self.record("endless", hexid, sent, sent)

    def serve_toobig(self, hexid):
        self.head(64 << 30)
        zero = bytes(CHUNK)
        sent = self.stream(lambda _: zero, self.server.cfg["max"])
        self.record("toobig", hexid, sent, sent)

    def serve_bomb(self, hexid):
        bomb = self.server.cfg["bomb"]
        self.head(len(bomb), [("Content-Encoding", "gzip")])
        sent = self.stream(lambda off: bomb[off:off + CHUNK], len(bomb))
        inflated = sent * (self.server.cfg["bomb_mib"] << 20) // max(len(bomb), 1)
        self.record("bomb", hexid, sent, inflated)

    def serve_drip(self, hexid):
        self.head(1 << 20)

        def one(_):
            time.sleep(1)
            return b"\x7f"
        sent = self.stream(one, 1 << 20)
        self.record("drip", hexid, sent, sent)

    def serve_wrongid(self, hexid):
        with open(self.server.cfg["elf"], "rb") as f:
            data = f.read()
        self.head(len(data))
        sent = self.stream(lambda off: data[off:off + CHUNK], len(data))
        self.record("wrongid", hexid, sent, sent)

    def serve_redirect(self, hexid):
        time.sleep(0.05)  # 20 hops a second: the loop outlasts libcurl's patience
        self.send_response(302)
        self.send_header("Location", self.path.split("?")[0] + ("" if "?" in self.path else "?"))
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.record("redirect", hexid, 0, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--elf")
    ap.add_argument("--bomb-mib", type=int, default=1024)
    ap.add_argument("--max-mib", type=int, default=4096)
    ap.add_argument("routes", nargs="*")
    a = ap.parse_args()
    routes = dict(r.split("=", 1) for r in a.routes)
    known = {"endless", "bomb", "drip", "wrongid", "redirect", "toobig"}
    if not set(routes.values()) <= known:
        sys.exit(f"unknown mode in {a.routes}")
    srv = Server(("127.0.0.1", 0), Handler)
    srv.cfg = {
        "routes": routes, "log": a.log, "elf": a.elf, "lock": threading.Lock(),
        "bomb": make_bomb(a.bomb_mib) if "bomb" in routes.values() else b"",
        "bomb_mib": a.bomb_mib, "max": a.max_mib << 20,
    }
    open(a.log, "w", encoding="ascii").close()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(f"{srv.server_address[1]}\n")
    os.rename(tmp, a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
