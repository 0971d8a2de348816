"""deploy/serve.py: N app processes behind HAProxy (see deploy/README.md)."""
