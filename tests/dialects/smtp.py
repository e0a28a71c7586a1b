"""A tiny fake SMTP server on 127.0.0.1 (no TLS, no auth), enough for smtplib to deliver one
message; it records envelope and data."""

from __future__ import annotations

import socket
import threading


class FakeSmtp:
    def __init__(self) -> None:
        self.messages: list[dict] = []
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(1)
        self._sock.settimeout(10)
        self.port = self._sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> FakeSmtp:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join(timeout=10)
        self._sock.close()

    def _serve(self) -> None:
        conn, _ = self._sock.accept()
        conn.settimeout(10)
        stream = conn.makefile("rb")

        def say(line: str) -> None:
            conn.sendall(line.encode() + b"\r\n")

        say("220 fake ESMTP")
        mail: dict = {"to": []}
        while True:
            line = stream.readline().decode().rstrip("\r\n")
            verb = line[:4].upper()
            if verb in ("EHLO", "HELO"):
                say("250 fake")
            elif verb == "MAIL":
                mail["from"] = line.split(":", 1)[1].strip().strip("<>").split(">")[0]
                say("250 ok")
            elif verb == "RCPT":
                mail["to"].append(line.split(":", 1)[1].strip().strip("<>"))
                say("250 ok")
            elif verb == "DATA":
                say("354 go on")
                body = []
                while (part := stream.readline().decode()) not in (".\r\n", ""):
                    body.append(part)
                mail["data"] = "".join(body)
                self.messages.append(mail)
                mail = {"to": []}
                say("250 queued")
            elif verb == "QUIT" or not line:
                say("221 bye")
                break
            else:
                say("250 ok")
        conn.close()
