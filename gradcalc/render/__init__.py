"""render: numbers, tables and formats for results. Imports core to io."""
