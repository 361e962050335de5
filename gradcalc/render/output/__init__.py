"""render.output: how a result leaves -- the formats and their sinks (``formats``), the one
JSON encoder (``encoding``) and compact JSON for many points (``compact``).

Imports core and the layers below render; never a view of a result."""
