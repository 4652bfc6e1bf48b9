# An HTTP/2 origin on Python's h2 library (Debian's python3-h2), for conduit's interop tests.
#
#   python3 python_h2_server.py PORT ROOT [CERT KEY]
#
# Over TLS (ALPN h2) when CERT and KEY are given, else h2c with prior knowledge. Serves:
#   GET  /<file>        a file of ROOT (files only, no subdirectories)
#   POST /echo          the request body back, with trailers x-body-sha256 and x-body-length
#   GET  /many-<i>.txt  the file, but held until HOLD_AT such streams are open on the connection,
#                       so a client that answers the test must have them all in flight at once
#   GET  /goaway-<i>    held until GOAWAY_AT such streams are open on the first connection that
#                       asks; then one GOAWAY (NO_ERROR) whose last-stream-id is the second of
#                       them, an answer to the two it covers, and the connection closes once they
#                       are sent. On later connections the same paths are answered at once. The
#                       body names the connection (by its number) that answered.
import asyncio
import hashlib
import os
import ssl
import sys

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
from hyperframe.frame import GoAwayFrame

HOLD_AT = 100
GOAWAY_AT = 4
MAX_STREAMS = 128
CLOSE_WAIT_S = 10


class Server:
    def __init__(self, root):
        self.root = root
        self.connections = 0
        self.goaway_sent = False


class Connection:
    def __init__(self, server, reader, writer):
        self.server = server
        server.connections += 1
        self.number = server.connections
        self.reader = reader
        self.writer = writer
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding='utf-8'))
        self.requests = {}
        self.held = []
        self.goaway_held = []
        self.closing_after = None
        self.terminated = False
        # Stream id -> (remaining bytes, end with trailers) waiting for window.
        self.pending = {}

    async def run(self):
        self.conn.initiate_connection()
        self.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: MAX_STREAMS})
        await self.flush()
        try:
            while True:
                if self.closing_after is not None and not self.closing_after:
                    # Everything the GOAWAY covers is sent: wait (bounded) for the client to close,
                    # since closing first with its frames unread would reset the connection and
                    # could destroy the answers before it reads them.
                    try:
                        data = await asyncio.wait_for(self.reader.read(65536), CLOSE_WAIT_S)
                    except asyncio.TimeoutError:
                        break
                else:
                    data = await self.reader.read(65536)
                if not data:
                    break
                try:
                    events = self.conn.receive_data(data)
                except h2.exceptions.ProtocolError:
                    await self.flush()
                    break
                for event in events:
                    self.handle(event)
                await self.flush()
                if self.terminated:
                    break
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            self.writer.close()

    def handle(self, event):
        if isinstance(event, h2.events.RequestReceived):
            headers = dict(event.headers)
            self.requests[event.stream_id] = {'headers': headers, 'body': bytearray()}
        elif isinstance(event, h2.events.DataReceived):
            request = self.requests.get(event.stream_id)
            if request is not None:
                request['body'] += event.data
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            self.answer(event.stream_id)
        elif isinstance(event, h2.events.WindowUpdated):
            for stream_id in list(self.pending):
                self.send_pending(stream_id)
        elif isinstance(event, h2.events.StreamReset):
            self.pending.pop(event.stream_id, None)
            self.forget(event.stream_id)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.terminated = True

    def answer(self, stream_id):
        request = self.requests[stream_id]
        method = request['headers'].get(':method')
        path = request['headers'].get(':path', '/')
        if method == 'POST' and path == '/echo':
            body = bytes(request['body'])
            trailers = [('x-body-sha256', hashlib.sha256(body).hexdigest()), ('x-body-length', str(len(body)))]
            self.respond(stream_id, 200, body, trailers)
        elif path.startswith('/goaway-'):
            self.goaway(stream_id, path)
        elif path.startswith('/many-'):
            self.held.append(stream_id)
            if len(self.held) >= HOLD_AT:
                held, self.held = self.held, []
                for held_id in held:
                    self.serve_file(held_id, self.requests[held_id]['headers'][':path'])
        else:
            self.serve_file(stream_id, path)

    def goaway(self, stream_id, path):
        if self.server.goaway_sent:
            self.respond(stream_id, 200, f'{path} on connection {self.number}'.encode())
            return
        self.goaway_held.append(stream_id)
        if len(self.goaway_held) < GOAWAY_AT:
            return
        self.server.goaway_sent = True
        held = sorted(self.goaway_held)
        last = held[1]
        # Written as a raw frame: h2's own close_connection() would stop the connection from
        # answering the streams the GOAWAY still covers, which a graceful GOAWAY must do.
        frame = GoAwayFrame(stream_id=0, last_stream_id=last, error_code=0)
        self.conn._data_to_send += frame.serialize()
        covered = [s for s in held if s <= last]
        self.closing_after = list(covered)
        for held_id in covered:
            self.respond(held_id, 200, f"{self.requests[held_id]['headers'][':path']} on connection {self.number}".encode())

    def serve_file(self, stream_id, path):
        name = path.lstrip('/')
        file = os.path.join(self.server.root, name)
        if '/' in name or name == '' or not os.path.isfile(file):
            self.respond(stream_id, 404, b'not found')
            return
        with open(file, 'rb') as f:
            self.respond(stream_id, 200, f.read())

    def respond(self, stream_id, status, body, trailers=None):
        headers = [(':status', str(status)), ('content-length', str(len(body))), ('server', 'python-h2')]
        self.conn.send_headers(stream_id, headers)
        self.pending[stream_id] = (memoryview(body), trailers)
        self.send_pending(stream_id)

    def send_pending(self, stream_id):
        body, trailers = self.pending[stream_id]
        while len(body) > 0:
            room = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
            if room <= 0:
                self.pending[stream_id] = (body, trailers)
                return
            self.conn.send_data(stream_id, bytes(body[:room]))
            body = body[room:]
        del self.pending[stream_id]
        if trailers is not None:
            self.conn.send_headers(stream_id, trailers, end_stream=True)
        else:
            self.conn.end_stream(stream_id)
        self.forget(stream_id)

    def forget(self, stream_id):
        self.requests.pop(stream_id, None)
        if self.closing_after is not None and stream_id in self.closing_after:
            self.closing_after.remove(stream_id)

    async def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.writer.write(data)
            await self.writer.drain()


async def main():
    port = int(sys.argv[1])
    server = Server(sys.argv[2])
    context = None
    if len(sys.argv) > 4:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        context.set_alpn_protocols(['h2'])

    async def accept(reader, writer):
        await Connection(server, reader, writer).run()

    listener = await asyncio.start_server(accept, '127.0.0.1', port, ssl=context)
    async with listener:
        await listener.serve_forever()


asyncio.run(main())
