"""render: numbers, tables and formats for results, in five rooms, lowest first: ``output``
(the formats and how a result leaves), ``pieces`` (the rows every view shares), ``drawings``
(op-graph pictures), ``views`` (a view per kind of result) and ``notebook`` (HTML, a tape's
own table). Imports core to io."""
