#!/usr/bin/env python3
"""Smart HTTP for the end-to-end tests: `git http-backend` behind a small WSGI server.

Usage: git_http_server.py <project-root>
Prints the port it listens on (127.0.0.1, a free port chosen by the kernel) on the first line of
stdout, then serves until killed. Repositories are the directories under <project-root>; pushes
are enabled (REMOTE_USER is set). A path under /private/ answers 401 with a Basic challenge, so a
test can check that nothing ever prompts for a password. Standard library only.
"""
import os
import socketserver
import subprocess
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class Server(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def read_body(environ):
    stream = environ["wsgi.input"]
    if environ.get("HTTP_TRANSFER_ENCODING", "").lower() == "chunked":
        # wsgiref does not de-chunk: git sends pushes over http.postBuffer chunked.
        body = b""
        while True:
            size = int(stream.readline().strip().split(b";")[0], 16)
            if size == 0:
                stream.readline()
                return body
            body += stream.read(size)
            stream.readline()
    length = environ.get("CONTENT_LENGTH") or "0"
    return stream.read(int(length)) if int(length) > 0 else b""


def app(root):
    def handle(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path.startswith("/private/"):
            start_response("401 Unauthorized", [("WWW-Authenticate", 'Basic realm="test"'), ("Content-Length", "0")])
            return [b""]
        body = read_body(environ)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "GIT_PROJECT_ROOT": root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": environ["REQUEST_METHOD"],
            "PATH_INFO": path,
            "QUERY_STRING": environ.get("QUERY_STRING", ""),
            "CONTENT_TYPE": environ.get("CONTENT_TYPE", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": "127.0.0.1",
            "REMOTE_USER": "test",
            "HTTP_CONTENT_ENCODING": environ.get("HTTP_CONTENT_ENCODING", ""),
            "GIT_PROTOCOL": environ.get("HTTP_GIT_PROTOCOL", ""),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "HOME": os.environ.get("HOME", "/nonexistent"),
        }
        p = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True)
        head, _, out = p.stdout.partition(b"\r\n\r\n")
        status = "200 OK"
        headers = []
        for line in head.decode("latin-1").split("\r\n"):
            if not line:
                continue
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = value.strip()
            else:
                headers.append((name, value.strip()))
        start_response(status, headers)
        return [out]

    return handle


def main():
    root = os.path.abspath(sys.argv[1])
    srv = make_server("127.0.0.1", 0, app(root), server_class=Server, handler_class=Quiet)
    print(srv.server_port, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
