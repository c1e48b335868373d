"""Every entry the app keeps in a session's ``st.session_state`` besides its widgets' values, in
one place: what each holds, and which module owns it. Each name starts with ``_svmviz_``: a link or
a lesson file can never set one (``svmviz_app.state`` and ``svmviz.export.lesson`` refuse keys
starting with "_"), and no widget key of a page can collide with one."""


# -------------------- svmviz_app.state: the app state and the URL
REGISTRY = "_svmviz_bound"                    # {key: default} of every key bound in this session
URL = "_svmviz_url"                           # the query parameters the session was opened with
DATASET = "_svmviz_dataset"                   # the current Dataset
NOTES = "_svmviz_notes"                       # one-line notes for the user (a link that could not be followed)
NOTES_BOX = "_svmviz_notes_box"               # where this run shows the notes (the sidebar summary's box)
LINK_BOX = "_svmviz_link_box"                 # where the last full run showed the view's link (the share panel's box)
PENDING = "_svmviz_pending"                   # state to apply before any widget of the next run (lesson files)
SPLIT_CACHE = "_svmviz_split_cache"           # the split of the current data and split values, made once
NEXT_RUN = "_svmviz_next_run"                 # bound values to set before any widget of the next run
ROUTED = "_svmviz_routed"                     # this session's runs go through app.py's navigation
BIND_SCOPE = "_svmviz_bind_scope"             # a set collecting the keys bound while it is in session state
HULL_NODE = "_svmviz_hull_node"               # an SVM tree step's samples sent to the Convex Hulls page

# -------------------- svmviz_app.live: the live class
LIVE = "_svmviz_live"                         # {"role", "code", "token"|"sid", "version", "qid", "detached"}
LIVE_PAGE = "_svmviz_live_page"               # url path of the page this session shows ("" = home)
LIVE_SENT = "_svmviz_live_sent"               # the last view published (compared before publishing again)
LIVE_QUESTION = "_svmviz_live_question"       # the last poll's question (students)
LIVE_GOTO = "_svmviz_live_goto"               # the instructor's page, to switch to at the next app run
LIVE_APPLIED = "_svmviz_live_applied"         # the last view taken (students)
LIVE_STEPPERS = "_svmviz_live_steppers"       # what the page's steppers drew in this page's last runs
LIVE_IN_STEPPER = "_svmviz_live_in_stepper"   # the step key of the stepper whose view is drawing
LIVE_WAITING = "_svmviz_live_waiting"         # the step key of a stepper asked to draw a step it has not drawn yet
LIVE_HANDED = "_svmviz_live_handed"           # this session's class is run by another session: no claim from here
# the browser's claim, kept by a projector tab of the instructor's browser
LIVE_HELD = "_svmviz_live_held"
LIVE_FORGET = "_svmviz_live_forget"           # the browser's claim names a class that is over: forget it
# the last poll found the instructor silent for over away_after_s() (students)
LIVE_AWAY = "_svmviz_live_away"
LIVE_ENDED = "_svmviz_live_ended"             # the class this student followed has ended (the notice)
LIVE_RESUME = "_svmviz_live_resume"           # a resume code just made, shown once
LIVE_ASK = "_svmviz_live_ask"                 # (page, make, step key, n_steps) of the question the page's view offers
# {"code", "qid", "counts"}: the tally of the question last revealed (published)
LIVE_REVEALED = "_svmviz_live_revealed"
LIVE_ADDRESS = "_svmviz_live_address"         # this computer's network address the instructor picked for the link
LIVE_FEEDER = "_svmviz_live_feeder"           # (page, step key) of the stepper whose step element follows the class
LIVE_TICKING = "_svmviz_live_ticking"         # the last app run drew the ticker
LIVE_KEPT = "_svmviz_live_kept"               # (code, view digest, steps) of the step figures last kept in the room
LIVE_ERROR = "_svmviz_live_error"             # a message about the class for the Live class box, shown once
LIVE_CODE_INPUT = "_svmviz_live_code"         # the join box's text input (a widget key)
LIVE_TRIED = "_svmviz_live_tried"             # the link's room was tried once (a bad code is not tried at every run)

# -------------------- svmviz_app.clients: which browser a session speaks for
CLIENT_ID = "_svmviz_client"                  # the client id this session speaks for
CLIENT_ASKED = "_svmviz_client_asked"         # the browser answered

# -------------------- svmviz_app.frame: the page frame
FRAME_TOP = "_svmviz_projector_top"           # this run's container at the top of the page (lesson mode), until used

# -------------------- svmviz_app.draw: the drawing
DRAWN_POINTS = "_svmviz_drawn"                # the drawing: an (n, 3) array of x1, x2, class number 1..K
DRAWN_NAMES = "_svmviz_drawn_names"           # the palette: the name of class k at k − 1
DRAWN_CLASS = "_svmviz_drawn_class"           # the class a click adds
DRAWN_SELECTED = "_svmviz_drawn_selected"     # the drawn point the table selected
# bumped by every change: new widget keys forget old selections and edits
DRAWN_VERSION = "_svmviz_drawn_version"
DRAWN_MSG = "_svmviz_drawn_msg"               # what the last change did not apply, shown once
DRAWN_FULL_RUN = "_svmviz_drawn_full_run"     # a callback changed state outside the panel: rerun the whole page once

# -------------------- svmviz_app.widgets: files brought in (uploads, lessons, models)
UPLOAD_SEEN = "_svmviz_upload_seen"           # (file, error) of the data upload last read: read once
# what a lesson file just brought back and the page it opened, said there
LESSON_RESTORED = "_svmviz_lesson_restored"
LESSON_GOTO = "_svmviz_lesson_goto"           # the page a lesson file opens once the Data page ran with its values
IMPORT_FOLLOWED_PREFIX = "_svmviz_import_followed_"   # + page key: {model, shown, before, unshown, labels}
LESSON_SOURCE = "_svmviz_lesson_source"       # what a lesson download saves, kept current by every run
LESSON_MODEL = "_svmviz_lesson_model"         # the model a lesson file brought, until its page takes it


def imported_model(page_key: str) -> str:
    """The model imported on the page of ``page_key`` (its sidebar uploader's)."""
    return f"_svmviz_import_{page_key}"


def import_seen(page_key: str) -> str:
    """The upload last read by the model uploader of the page of ``page_key``: read once."""
    return f"_svmviz_import_seen_{page_key}"
