"""What each section of a page computes and draws, one function per section: its numbers, the booleans its
claims rest on, and its figures, from the section's inputs (the sentence, d, seed, a control's value).

The page script caches each with ``frame.cached`` and keeps only the narrative: the question, the key chart,
the answer and its prose. One module per page: ``sections.fixes`` for lessons/fixes.py, and so on.
numpy and ``posenc.charts`` only (no Streamlit).
"""
