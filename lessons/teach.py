"""Teach with it: start a class, hand out the join code, the student link and a QR code; the class summary."""

import streamlit as st

import frame
from frame import classroom
from posenc import class_store

PATH = "lessons/teach.py"


with frame.page(PATH, "What did the hall predict? Start a class, and every Predict on every page becomes a live, "
                "anonymous vote that you reveal when the discussion is done."):
    room = classroom.current()

    if room is None:
        st.markdown(
            "A class lasts 24 hours. You get a short join code, a student link and a QR code for the projector, and "
            "a **teacher link** that only you keep: it shows the hall's votes under each Predict, with *Reveal*, "
            "*Vote again* and *Reset*. Students are anonymous (a random id per browser); no names, no free text.")
        if st.button("Start a class", type="primary", icon=":material/groups:", key="pe_start_class"):
            classroom.start_class()
            st.rerun()
    elif not room.teacher:
        st.info(f"You are in class {room.code} as a student. Open any page and answer its Predict: your vote counts "
                "anonymously, and the answer shows when your teacher reveals it.", icon=":material/how_to_vote:")
        first = next((p for p in frame.existing_pages() if p.url_path and p.path != PATH), None)
        if first is not None:
            st.page_link(first.path, label=f"Start: {first.title}", icon=":material/arrow_forward:",
                         query_params={classroom.CLASS_PARAM: room.code})
    else:
        base = classroom.base_url()
        student_link = f"{base}/teach?{classroom.CLASS_PARAM}={room.code}"  # lands here: says what class mode is
        teacher_link = f"{base}/teach?{classroom.CLASS_PARAM}={room.code}&{classroom.TEACH_PARAM}={room.token}"

        @frame.section("Join the class")
        def join() -> None:
            left, right = st.columns([1, 1])
            with left:
                st.html(f'<p class="pe-join-label">Join code</p><p class="pe-join-code" '
                        f'style="font-size:4rem;font-weight:700;letter-spacing:0.2em;margin:0;color:#222">'
                        f"{room.code}</p>")
                st.markdown("**Student link** (or add `?class=` and the code to any page's address):")
                st.code(student_link, language=None, wrap_lines=True)
                with st.expander("Your teacher link (keep it to yourself: it carries your key)",
                                 icon=":material/key:"):
                    st.markdown("Open it on the screen you project — in full screen, which hides the address "
                                "bar — or on your own device. Anyone with it gets the teacher controls.")
                    st.code(teacher_link, language=None, wrap_lines=True)
                first = next((p for p in frame.existing_pages() if p.url_path and p.path != PATH), None)
                if first is not None:
                    st.page_link(first.path, label=f"Start the lesson: {first.title}", icon=":material/arrow_forward:",
                                 query_params={classroom.CLASS_PARAM: room.code, classroom.TEACH_PARAM: room.token})
            with right:
                st.html(classroom.qr_svg(student_link))

        @frame.section("What the hall answered", fragment=True)
        def summary() -> None:
            rows = classroom.store().summary(room.code)
            if not rows:
                st.markdown("No votes yet. Each question appears here once a student has voted on it, with each "
                            "round's counts.")
                return
            qs = {r["question id"] for r in rows}
            rounds = len({(r["question id"], r["round"]) for r in rows})
            st.markdown(f"{len(qs)} question{'s' if len(qs) != 1 else ''} answered so far, "
                        f"{rounds} round{'s' if rounds != 1 else ''} in all.")
            frame.table({"question": [r["question"] for r in rows], "round": [r["round"] for r in rows],
                         "option": [r["option"] for r in rows],
                         "votes": [f"{r['votes']} ({r['share']:.0%})" for r in rows]})
            st.download_button("Download the summary (CSV)", class_store.summary_csv(rows), file_name=f"class-{room.code}.csv",
                               mime="text/csv", icon=":material/download:", key="pe_class_csv",
                               on_click="ignore")
            if st.button("Refresh", key="pe_class_refresh", icon=":material/refresh:"):
                pass

    frame.bridge(PATH, "Class mode works on every page: start the lesson from the link above, and each Predict "
                 "shows the hall's votes on your screen while the students' answers wait for your Reveal.")
