#!/usr/bin/env python3
"""severing-proxy.py PORT TARGET_PORT SEVER_FILE

A TCP proxy on 127.0.0.1:PORT to 127.0.0.1:TARGET_PORT that, each time
SEVER_FILE appears, resets every connection open at that moment on both
sides, as a dropped network path would, and removes the file. Writes its
PID to SEVER_FILE.pid, and "ready" to SEVER_FILE.ready once it listens.
Exits after 300 seconds at the latest.
"""
import asyncio
import os
import socket
import struct
import sys

PORT, TARGET, SEVER = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
connections = set()


def reset(writer):
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                        struct.pack("ii", 1, 0))
    writer.transport.abort()


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def handle(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection(
            "127.0.0.1", TARGET)
    except OSError:
        reset(client_writer)
        return
    pair = (client_writer, server_writer)
    connections.add(pair)
    try:
        await asyncio.gather(pipe(client_reader, server_writer),
                             pipe(server_reader, client_writer))
    finally:
        connections.discard(pair)


async def watch():
    while True:
        if os.path.exists(SEVER):
            for pair in list(connections):
                for writer in pair:
                    reset(writer)
            connections.clear()
            os.remove(SEVER)
        await asyncio.sleep(0.02)


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", PORT)
    with open(SEVER + ".pid", "w") as f:
        f.write(str(os.getpid()))
    with open(SEVER + ".ready", "w") as f:
        f.write("ready\n")
    async with server:
        await asyncio.wait_for(watch(), timeout=300)


try:
    asyncio.run(main())
except asyncio.TimeoutError:
    pass
