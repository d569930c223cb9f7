"""The control socket: protocol, asyncio server, blocking client."""
