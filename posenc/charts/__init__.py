"""Chart builders, one module per page topic (altair + pyarrow, no streamlit).

Every builder finishes its chart through the one pipeline, ``posenc.charts.spec.figure``: an Altair chart over
named datasets, the data as Arrow tables, a description, the house style. Pages draw the returned ``Figure``
with ``frame.chart``.
"""
