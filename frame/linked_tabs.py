"""Tabs that a link opens by the control it sets: a link that sets one tab's control but names no tab opens
that tab (a shared link with ?fx_mpos=60 shows the Multiply tab, where fx_mpos lives)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from .urlstate import tabs as url_tabs


def tabs(labels: Sequence[str], key: str, opened_by: Mapping[str, int]) -> Sequence[Any]:
    """``frame.tabs`` (bound to the URL as ?key=<label>) whose first open, from a link that names no tab, goes
    to the tab of the first control the link sets; ``opened_by`` maps a control's key to its tab's index."""
    if key not in st.session_state and key not in st.query_params:
        linked = sorted(i for control, i in opened_by.items() if control in st.query_params)
        if linked:
            st.session_state[key] = labels[linked[0]]
    return url_tabs(labels, key=key)
