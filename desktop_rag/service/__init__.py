"""The library as a service: the operations local agents and scripts use (tools.py), the runs they start
(runs.py), a local endpoint through which the process holding the models warm answers the others (endpoint.py),
and the MCP server over stdio (mcp_server.py)."""
