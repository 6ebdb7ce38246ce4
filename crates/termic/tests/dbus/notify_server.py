#!/usr/bin/env python3
"""A tiny org.freedesktop.Notifications server for termic's tests.

Standard library only: speaks the D-Bus wire protocol itself (EXTERNAL
auth, little-endian messages) on the session bus named by
DBUS_SESSION_BUS_ADDRESS (unix:path=... only). It owns the name, answers
Notify, GetCapabilities (body, actions), GetServerInformation and
CloseNotification, and prints one JSON line per Notify on stdout:
{"id", "app_name", "summary", "body", "actions", "hints"}.

On stdin, `click ID ACTION` emits ActionInvoked(ID, ACTION) then
NotificationClosed(ID, 2), as a server does when the user clicks.
With NOTIFY_AUTOCLICK=ACTION in the environment it does the same for every
notification the instant it has answered its Notify: the fastest click
there can be, before the app's call has even returned.
It prints `ready` once it owns the name.
"""

import json
import os
import select
import socket
import struct
import sys

IFACE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def pad(n, align):
    return (-n) % align


class Writer:
    def __init__(self):
        self.buf = bytearray()

    def align(self, a):
        self.buf += b"\0" * pad(len(self.buf), a)

    def put(self, sig, value):
        c = sig[0]
        if c == "y":
            self.buf += struct.pack("<B", value)
        elif c in "ub":
            self.align(4)
            self.buf += struct.pack("<I", int(value))
        elif c == "i":
            self.align(4)
            self.buf += struct.pack("<i", value)
        elif c in "so":
            self.align(4)
            data = value.encode()
            self.buf += struct.pack("<I", len(data)) + data + b"\0"
        elif c == "g":
            data = value.encode()
            self.buf += struct.pack("<B", len(data)) + data + b"\0"
        elif c == "v":
            vsig, inner = value
            self.put("g", vsig)
            self.put(vsig, inner)
        elif c == "a":
            elem = one_type(sig[1:])
            self.align(4)
            at = len(self.buf)
            self.buf += b"\0\0\0\0"
            self.align(8 if elem[0] in "({" else alignment(elem))
            start = len(self.buf)
            for item in value:
                self.put(elem, item)
            struct.pack_into("<I", self.buf, at, len(self.buf) - start)
        elif c in "({":
            self.align(8)
            for s, v in zip(split_types(sig[1:-1]), value):
                self.put(s, v)
        else:
            raise ValueError("cannot write " + sig)


def alignment(sig):
    return {"y": 1, "g": 1, "v": 1, "b": 4, "u": 4, "i": 4, "s": 4, "o": 4,
            "a": 4, "x": 8, "t": 8, "d": 8, "(": 8, "{": 8, "n": 2, "q": 2,
            "h": 4}[sig[0]]


def one_type(sig):
    """The first complete type in sig."""
    c = sig[0]
    if c == "a":
        return "a" + one_type(sig[1:])
    if c in "({":
        close = ")" if c == "(" else "}"
        depth = 0
        for i, ch in enumerate(sig):
            if ch in "({":
                depth += 1
            elif ch in ")}":
                depth -= 1
                if depth == 0:
                    return sig[: i + 1]
        raise ValueError(sig + close)
    return c


def split_types(sig):
    out = []
    while sig:
        t = one_type(sig)
        out.append(t)
        sig = sig[len(t):]
    return out


class Reader:
    def __init__(self, data, pos=0):
        self.data = data
        self.pos = pos

    def align(self, a):
        self.pos += pad(self.pos, a)

    def get(self, sig):
        c = sig[0]
        fixed = {"y": "<B", "b": "<I", "u": "<I", "i": "<i", "n": "<h",
                 "q": "<H", "x": "<q", "t": "<Q", "d": "<d", "h": "<I"}
        if c in fixed:
            size = struct.calcsize(fixed[c])
            self.align(size)
            (v,) = struct.unpack_from(fixed[c], self.data, self.pos)
            self.pos += size
            return bool(v) if c == "b" else v
        if c in "so":
            self.align(4)
            (n,) = struct.unpack_from("<I", self.data, self.pos)
            self.pos += 4
            v = self.data[self.pos: self.pos + n].decode("utf-8", "replace")
            self.pos += n + 1
            return v
        if c == "g":
            n = self.data[self.pos]
            v = self.data[self.pos + 1: self.pos + 1 + n].decode()
            self.pos += n + 2
            return v
        if c == "v":
            vsig = self.get("g")
            return self.get(vsig)
        if c == "a":
            elem = one_type(sig[1:])
            self.align(4)
            (n,) = struct.unpack_from("<I", self.data, self.pos)
            self.pos += 4
            self.align(alignment(elem))
            end = self.pos + n
            items = []
            while self.pos < end:
                items.append(self.get(elem))
            if elem[0] == "{":
                return {str(k): v for k, v in items}
            return items
        if c in "({":
            self.align(8)
            return [self.get(s) for s in split_types(sig[1:-1])]
        raise ValueError("cannot read " + sig)


class Bus:
    def __init__(self, address):
        path = None
        for part in address.split(";")[0].split(":", 1)[1].split(","):
            k, _, v = part.partition("=")
            if k == "path":
                path = v
        if path is None:
            raise SystemExit("only unix:path= addresses: " + address)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        uid = str(os.getuid()).encode().hex()
        self.sock.sendall(b"\0AUTH EXTERNAL " + uid.encode() + b"\r\n")
        line = self.readline()
        if not line.startswith(b"OK"):
            raise SystemExit("auth refused: %r" % line)
        self.sock.sendall(b"BEGIN\r\n")
        self.serial = 0
        self.inbuf = b""
        self.call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                  "org.freedesktop.DBus", "Hello", "", [])
        self.call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                  "org.freedesktop.DBus", "RequestName", "su", [IFACE, 4])

    def readline(self):
        line = b""
        while not line.endswith(b"\r\n"):
            ch = self.sock.recv(1)
            if not ch:
                raise SystemExit("bus closed during auth")
            line += ch
        return line

    def send(self, mtype, fields, sig, args, flags=0):
        self.serial += 1
        body = Writer()
        if sig:
            for s, v in zip(split_types(sig), args):
                body.put(s, v)
            fields = fields + [(8, ("g", sig))]
        head = Writer()
        head.buf += struct.pack("<BBBBII", ord("l"), mtype, flags, 1,
                                len(body.buf), self.serial)
        head.put("a(yv)", fields)
        head.align(8)
        self.sock.sendall(bytes(head.buf) + bytes(body.buf))
        return self.serial

    def call(self, dest, path, iface, member, sig, args):
        serial = self.send(1, [(1, ("o", path)), (2, ("s", iface)),
                               (3, ("s", member)), (6, ("s", dest))], sig, args)
        while True:
            msg = self.recv()
            if msg["type"] in (2, 3) and msg["fields"].get(5) == serial:
                if msg["type"] == 3:
                    raise SystemExit("%s failed: %r" % (member, msg["body"]))
                return msg["body"]

    def reply(self, msg, sig, args):
        fields = [(5, ("u", msg["serial"]))]
        if 7 in msg["fields"]:
            fields.append((6, ("s", msg["fields"][7])))
        self.send(2, fields, sig, args)

    def signal(self, member, sig, args):
        self.send(4, [(1, ("o", PATH)), (2, ("s", IFACE)), (3, ("s", member))],
                  sig, args)

    def recv(self):
        while True:
            if len(self.inbuf) >= 16:
                _, mtype, _, _, blen, serial, flen = struct.unpack_from(
                    "<BBBBIII", self.inbuf, 0)
                hlen = 16 + flen + pad(16 + flen, 8)
                if len(self.inbuf) >= hlen + blen:
                    data = self.inbuf[: hlen + blen]
                    self.inbuf = self.inbuf[hlen + blen:]
                    r = Reader(data, 12)
                    fields = {code: value for code, value in r.get("a(yv)")}
                    sig = fields.get(8, "")
                    r = Reader(data[hlen:])
                    body = [r.get(s) for s in split_types(sig)]
                    return {"type": mtype, "serial": serial,
                            "fields": fields, "body": body}
            chunk = self.sock.recv(65536)
            if not chunk:
                raise SystemExit(0)
            self.inbuf += chunk


def click(bus, nid, action):
    bus.signal("ActionInvoked", "us", [nid, action])
    bus.signal("NotificationClosed", "uu", [nid, 2])


def main():
    bus = Bus(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    autoclick = os.environ.get("NOTIFY_AUTOCLICK")
    print("ready", flush=True)
    next_id = 0
    while True:
        ready, _, _ = select.select([bus.sock, sys.stdin], [], [])
        if sys.stdin in ready:
            line = sys.stdin.readline()
            if not line:
                return
            words = line.split()
            if len(words) == 3 and words[0] == "click":
                click(bus, int(words[1]), words[2])
            continue
        msg = bus.recv()
        while True:
            if msg["type"] == 1 and msg["fields"].get(2) == IFACE:
                member = msg["fields"].get(3)
                if member == "Notify":
                    b = msg["body"]
                    next_id += 1
                    print(json.dumps({
                        "id": next_id, "app_name": b[0], "summary": b[3],
                        "body": b[4], "actions": b[5],
                        "hints": {k: v for k, v in b[6].items()
                                  if isinstance(v, (str, int, bool))},
                    }), flush=True)
                    bus.reply(msg, "u", [next_id])
                    if autoclick:
                        click(bus, next_id, autoclick)
                elif member == "GetCapabilities":
                    bus.reply(msg, "as", [["body", "actions"]])
                elif member == "GetServerInformation":
                    bus.reply(msg, "ssss", ["termic-test", "termic", "1", "1.2"])
                elif member == "CloseNotification":
                    bus.reply(msg, "", [])
            elif msg["type"] == 1 and msg["fields"].get(3) == "Ping":
                bus.reply(msg, "", [])
            if len(bus.inbuf) < 16:
                break
            msg = bus.recv()


if __name__ == "__main__":
    main()
