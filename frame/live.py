"""Charts in the page: drawing a figure (``chart``), and the one small in-page component (st.components.v2)
that keeps in-chart controls in the address, drives play buttons and shows on a tap what a hover shows."""

from __future__ import annotations

import streamlit as st

from posenc.charts.spec import Figure

PRESENT_MAX_HEIGHT = 250  # presentation mode: the lead and the key chart share one 1280×720 screen at 150 %


def presenting() -> bool:
    """Presentation mode (?present=1, or the sidebar's toggle)."""
    return bool(st.session_state.get("present", False))


def chart(fig: Figure) -> None:
    """Draw a finished figure (``posenc.charts.spec.figure``): full width of its column, large text and a
    capped height in presentation mode."""
    present = presenting()
    st.vega_lite_chart(fig.to_vega_lite(present=present, max_height=PRESENT_MAX_HEIGHT if present else None),
                       width="stretch")
